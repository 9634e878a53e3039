import { useTranslation } from '@/lib/i18n/i18n'

import { AccountAvatar } from './account-avatar'
import { lazyMenuButton } from './lazy-menu-button'

const AccountMenuButton = lazyMenuButton(() => import('./account-menu').then((module) => module.AccountMenu))

/** The account button; the real menu loads on first intent and opens if it was clicked. */
function LazyAccountMenu() {
  const { t } = useTranslation()
  return (
    <AccountMenuButton>
      <AccountAvatar />
      <span className="sr-only">{t('account.menu')}</span>
    </AccountMenuButton>
  )
}

export { LazyAccountMenu }
