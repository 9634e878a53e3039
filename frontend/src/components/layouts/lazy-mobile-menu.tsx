import { MenuIcon } from 'lucide-react'

import { useTranslation } from '@/lib/i18n/i18n'

import { lazyMenuButton } from './lazy-menu-button'

const MobileMenuButton = lazyMenuButton(() => import('./mobile-menu').then((module) => module.MobileMenu))

/** The menu button of narrow screens; the menu itself loads when first wanted. */
function LazyMobileMenu() {
  const { t } = useTranslation()
  return (
    <MobileMenuButton className="lg:hidden">
      <MenuIcon aria-hidden="true" />
      <span className="sr-only">{t('nav.openMenu')}</span>
    </MobileMenuButton>
  )
}

export { LazyMobileMenu }
