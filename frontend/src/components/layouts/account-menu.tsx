import { Link, useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

import { AccountAvatar } from './account-avatar'

const accountLinks: readonly { to: string; label: MessageKey }[] = [
  { to: paths.dashboard, label: 'account.dashboard' },
  { to: paths.myProperties, label: 'account.myProperties' },
  { to: paths.myProducts, label: 'account.myProducts' },
  { to: paths.myLands, label: 'account.myLands' },
  { to: paths.myServices, label: 'account.myServices' },
  { to: paths.myP2pOffers, label: 'account.myP2pOffers' },
  { to: paths.saved, label: 'account.saved' },
  { to: paths.profile, label: 'account.profile' },
]

function fullNameOf(metadata: Record<string, unknown> | undefined): string | undefined {
  const name = metadata?.full_name
  return typeof name === 'string' && name.trim() ? name.trim() : undefined
}

/** The account dropdown: sign-in links, or the user's pages and Log out. */
function AccountMenu({ defaultOpen = false }: { defaultOpen?: boolean }) {
  const { user, signOut } = useAuth()
  const { t } = useTranslation()
  const navigate = useNavigate()

  return (
    <DropdownMenu modal={false} defaultOpen={defaultOpen}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon">
          <AccountAvatar />
          <span className="sr-only">{t('account.menu')}</span>
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-56">
        {user ? (
          <>
            <DropdownMenuLabel className="flex flex-col gap-0.5">
              <span className="truncate">{user.email}</span>
              <span className="truncate text-xs font-normal text-muted-foreground">
                {fullNameOf(user.user_metadata) ?? t('account.user')}
              </span>
            </DropdownMenuLabel>
            <DropdownMenuSeparator />
            <DropdownMenuGroup>
              {accountLinks.map(({ to, label }) => (
                <DropdownMenuItem key={to + label} asChild>
                  <Link to={to}>{t(label)}</Link>
                </DropdownMenuItem>
              ))}
            </DropdownMenuGroup>
            <DropdownMenuSeparator />
            <DropdownMenuItem
              variant="destructive"
              onSelect={async () => {
                try {
                  await signOut()
                  toast({ title: t('account.signedOut'), variant: 'success' })
                } catch (error) {
                  toast({
                    title: (error instanceof Error && error.message) || t('account.signOutFailed'),
                    variant: 'destructive',
                  })
                } finally {
                  navigate(paths.home)
                }
              }}
            >
              {t('account.logout')}
            </DropdownMenuItem>
          </>
        ) : (
          <>
            <DropdownMenuItem asChild>
              <Link to={paths.login}>{t('account.login')}</Link>
            </DropdownMenuItem>
            <DropdownMenuItem asChild>
              <Link to={paths.register}>{t('account.signup')}</Link>
            </DropdownMenuItem>
          </>
        )}
      </DropdownMenuContent>
    </DropdownMenu>
  )
}

export { AccountMenu }
