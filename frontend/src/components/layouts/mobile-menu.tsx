import { MenuIcon } from 'lucide-react'

import { Button } from '@/components/ui/button'
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu'
import { useTranslation } from '@/lib/i18n/i18n'

import { NavItemLink } from './nav-item-link'
import { mainNavItems } from './nav-items'

/** The main navigation as a menu, for screens too narrow for the link row. */
function MobileMenu({ defaultOpen = false }: { defaultOpen?: boolean }) {
  const { t } = useTranslation()

  return (
    <DropdownMenu modal={false} defaultOpen={defaultOpen}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" className="lg:hidden">
          <MenuIcon aria-hidden="true" />
          <span className="sr-only">{t('nav.openMenu')}</span>
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-48">
        {mainNavItems.map(({ to, label, requiresAuth, alsoActiveOn }) => (
          <DropdownMenuItem key={to} asChild>
            <NavItemLink
              to={to}
              requiresAuth={requiresAuth}
              alsoActiveOn={alsoActiveOn}
              className="data-[active]:font-semibold data-[active]:text-primary"
            >
              {t(label)}
            </NavItemLink>
          </DropdownMenuItem>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  )
}

export { MobileMenu }
