import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import { useSignInWithGoogle } from '../api/sign-in'

/** 'Continue with Google': leaves for Google and comes back to the site root. */
export function GoogleButton() {
  const { t } = useTranslation()
  const google = useSignInWithGoogle()
  return (
    <Button
      type="button"
      variant="outline"
      disabled={google.isPending}
      onClick={() =>
        google.mutate(undefined, {
          onError: (error) =>
            toast({ title: error.message || t('auth.googleFailed'), variant: 'destructive' }),
        })
      }
    >
      {t('auth.google')}
    </Button>
  )
}
