import {
  BarChart3Icon,
  BoxIcon,
  HomeIcon,
  InboxIcon,
  LandPlotIcon,
  LayoutDashboardIcon,
  LogOutIcon,
  PlaneIcon,
  ScaleIcon,
  ShieldCheckIcon,
  ForkliftIcon,
  UserCogIcon,
} from 'lucide-react'
import { NavLink, useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'
import { cn } from '@/lib/utils'

import { adminSignOut } from '../api/admin-access'

import { useAdminLeaving } from './admin-guard'

/** The sidebar's sections (spec §2), with this panel's additions (disputes, reports). */
export const adminNav: { to: string; label: AdminKey; icon: typeof HomeIcon; end?: boolean }[] = [
  { to: '/admin/dashboard', label: 'admin.nav.dashboard', icon: LayoutDashboardIcon },
  { to: '/admin/users', label: 'admin.nav.users', icon: UserCogIcon },
  { to: '/admin/kyc', label: 'admin.nav.kyc', icon: ShieldCheckIcon },
  { to: '/admin/properties', label: 'admin.nav.properties', icon: HomeIcon },
  { to: '/admin/lands', label: 'admin.nav.lands', icon: LandPlotIcon },
  { to: '/admin/marketplace', label: 'admin.nav.marketplace', icon: BoxIcon },
  { to: '/admin/drone-services', label: 'admin.nav.droneServices', icon: PlaneIcon },
  { to: '/admin/moving-services', label: 'admin.nav.movingServices', icon: ForkliftIcon },
  { to: '/admin/disputes', label: 'admin.nav.disputes', icon: ScaleIcon },
  { to: '/admin/analytics', label: 'admin.nav.analytics', icon: BarChart3Icon },
  { to: '/admin/reports', label: 'admin.nav.inbox', icon: InboxIcon },
]

function useLogout() {
  const navigate = useNavigate()
  const { leave } = useAdminLeaving()
  return async () => {
    // Tell the guard first, so it does not answer the sign-out with the
    // visitors' sign-in redirect while the page for / is still loading.
    leave()
    navigate('/', { replace: true })
    await adminSignOut()
    toast({ title: tA('admin.loggedOut'), variant: 'success' })
  }
}

/** The admin sidebar (spec §2): 'Admin Panel', the sections, 'Main Website' and Logout; hidden on small screens. */
export function AdminSidebar() {
  useAdminTranslation()
  const logout = useLogout()
  return (
    <aside className="hidden w-64 shrink-0 flex-col border-r bg-card md:flex" aria-label={tA('admin.panel')}>
      <p className="px-5 py-5 text-lg font-bold">{tA('admin.panel')}</p>
      <nav aria-label={tA('admin.sections')} className="flex flex-1 flex-col gap-1 px-3">
        {adminNav.map(({ to, label, icon: Icon }) => (
          <NavLink
            key={to}
            to={to}
            className={({ isActive }) =>
              cn('flex items-center gap-3 rounded-md px-3 py-2 text-sm hover:bg-accent', isActive && 'bg-primary text-primary-foreground hover:bg-primary/90')
            }
          >
            <Icon className="size-4" aria-hidden="true" />
            {tA(label)}
          </NavLink>
        ))}
      </nav>
      <div className="flex flex-col gap-2 border-t p-3">
        <NavLink to="/" className="flex items-center gap-3 rounded-md px-3 py-2 text-sm hover:bg-accent">
          <HomeIcon className="size-4" aria-hidden="true" />
          {tA('admin.mainWebsite')}
        </NavLink>
        <Button variant="outline" onClick={() => void logout()}>
          <LogOutIcon aria-hidden="true" />
          {tA('admin.logout')}
        </Button>
      </div>
    </aside>
  )
}

/** The small-screen substitute for the sidebar: a scrolling row of the sections and Logout. */
export function AdminMobileNav() {
  const logout = useLogout()
  return (
    <div className="flex items-center gap-2 overflow-x-auto border-b bg-card px-3 py-2 md:hidden">
      <nav aria-label={tA('admin.sections')} className="flex gap-1">
        {adminNav.map(({ to, label }) => (
          <NavLink
            key={to}
            to={to}
            className={({ isActive }) => cn('rounded-md px-2 py-1 text-xs whitespace-nowrap', isActive ? 'bg-primary text-primary-foreground' : 'hover:bg-accent')}
          >
            {tA(label)}
          </NavLink>
        ))}
      </nav>
      <Button size="sm" variant="ghost" onClick={() => void logout()}>
        {tA('admin.logout')}
      </Button>
    </div>
  )
}
