import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useDiscoverTranslation } from '@/lib/i18n/discover'

import { useGoogleSignInEnabled } from '../api/get-auth-settings'
import { useSignInWithGoogle } from '../api/sign-in'

/**
 * 'or', then 'Continue with Google': leaves for Google and comes back to the
 * site root. Shown only when the auth server has Google sign-in configured
 * (its /settings), so a visitor never lands on the server's "provider is not
 * enabled" error; nothing is shown while that is being checked.
 */
export function GoogleButton() {
  const { t, td } = useDiscoverTranslation()
  const enabled = useGoogleSignInEnabled()
  const google = useSignInWithGoogle()
  if (!enabled) return null
  return (
    <>
      <p className="flex items-center gap-3 text-xs text-muted-foreground uppercase before:h-px before:flex-1 before:bg-border after:h-px after:flex-1 after:bg-border">
        {td('auth.or')}
      </p>
      <Button
        type="button"
        variant="outline"
        disabled={google.isPending}
        onClick={() =>
          google.mutate(undefined, {
            onError: (error) => toast({ title: error.message || t('auth.googleFailed'), variant: 'destructive' }),
          })
        }
      >
        {t('auth.google')}
      </Button>
    </>
  )
}
