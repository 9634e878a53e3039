import { ArrowLeftRightIcon, HouseIcon, MessageCircleIcon, SearchIcon, UserIcon, type LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'

import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

import { NavItemLink } from './nav-item-link'
import { SignedInSlot } from './signed-in-slot'

type BottomBarItem = {
  to: string
  label: MessageKey
  icon: LucideIcon
  requiresAuth?: boolean
  highlighted?: boolean
  alsoActiveOn?: readonly string[]
}

/**
 * The phone navigation fixed to the bottom, hidden from 768 px up (md).
 * P2P is the highlighted centre item; Messages needs sign-in; Profile
 * becomes Log in's target (/login) for signed-out visitors. `messagesBadge`
 * (lazily loaded) shows a signed-in user's unread count on Messages.
 */
function BottomBar({ messagesBadge }: { messagesBadge?: ReactNode }) {
  const { status } = useAuth()
  const { t } = useTranslation()

  const items: readonly BottomBarItem[] = [
    { to: paths.home, label: 'bottomBar.home', icon: HouseIcon, alsoActiveOn: [paths.root] },
    { to: paths.search, label: 'bottomBar.search', icon: SearchIcon },
    { to: paths.p2p, label: 'bottomBar.p2p', icon: ArrowLeftRightIcon, highlighted: true },
    { to: paths.messages, label: 'bottomBar.messages', icon: MessageCircleIcon, requiresAuth: true },
    {
      to: status === 'signed-out' ? paths.login : paths.profile,
      label: 'bottomBar.profile',
      icon: UserIcon,
    },
  ]

  return (
    <nav
      aria-label={t('bottomBar.label')}
      className="fixed inset-x-0 bottom-0 z-40 border-t bg-background/95 pb-[env(safe-area-inset-bottom)] backdrop-blur md:hidden"
    >
      <ul className="mx-auto grid h-16 max-w-md grid-cols-5 items-center">
        {items.map(({ to, label, icon: Icon, requiresAuth, highlighted, alsoActiveOn }) => (
          <li key={label} className="flex justify-center">
            <NavItemLink
              to={to}
              requiresAuth={requiresAuth}
              alsoActiveOn={alsoActiveOn}
              data-highlighted={highlighted ? '' : undefined}
              className={cn(
                'relative flex flex-col items-center gap-0.5 rounded-md px-2 py-1 text-xs text-muted-foreground data-[active]:text-primary',
                highlighted &&
                  '-mt-6 rounded-full bg-primary px-4 py-3 text-primary-foreground shadow-lg data-[active]:text-primary-foreground',
              )}
            >
              <Icon className="size-5" aria-hidden="true" />
              <span>{t(label)}</span>
              {to === paths.messages && <SignedInSlot>{messagesBadge}</SignedInSlot>}
            </NavItemLink>
          </li>
        ))}
      </ul>
    </nav>
  )
}

export { BottomBar }
