import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { paths } from '@/config/paths'
import { useTranslation } from '@/lib/i18n/i18n'

import { LazyAccountMenu } from './lazy-account-menu'
import { LanguageSwitcher } from './language-switcher'
import { LazyMobileMenu } from './lazy-mobile-menu'
import { NavItemLink } from './nav-item-link'
import { mainNavItems } from './nav-items'
import { SignedInSlot } from './signed-in-slot'
import { ThemeToggle } from './theme-toggle'

/** The sticky top bar: brand, main links, language, theme, the signed-in user's inbox (`inbox`) and account. */
function Navbar({ inbox }: { inbox?: ReactNode }) {
  const { t } = useTranslation()

  return (
    <header className="sticky top-0 z-40 border-b bg-background/95 backdrop-blur supports-[backdrop-filter]:bg-background/80">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-primary focus:px-3 focus:py-2 focus:text-primary-foreground"
      >
        {t('nav.skipToContent')}
      </a>
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4">
        <Link to={paths.home} className="text-xl font-bold tracking-tight text-primary">
          {t('app.name')}
        </Link>
        <nav aria-label={t('nav.label')} className="hidden lg:block">
          <ul className="flex items-center gap-1">
            {mainNavItems.map(({ to, label, requiresAuth, alsoActiveOn }) => (
              <li key={to}>
                <NavItemLink
                  to={to}
                  requiresAuth={requiresAuth}
                  alsoActiveOn={alsoActiveOn}
                  className="rounded-md px-3 py-2 text-sm font-medium text-muted-foreground transition-colors hover:bg-accent hover:text-accent-foreground data-[active]:text-primary"
                >
                  {t(label)}
                </NavItemLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-1">
          <LanguageSwitcher />
          <ThemeToggle />
          <SignedInSlot>{inbox}</SignedInSlot>
          <LazyAccountMenu />
          <LazyMobileMenu />
        </div>
      </div>
    </header>
  )
}

export { Navbar }
