import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { useAuth } from '@/lib/auth'
import { tA } from '@/lib/i18n/admin'

import { useMfaStep } from '../api/admin-access'
import { AccessCodeForm } from './access-code-form'
import { MfaChallengeForm } from './mfa-challenge-form'

/**
 * /admin/login's steps: the second factor first when the admin has one and
 * the session is still aal1 (the server refuses the access code until
 * then), then the access code.
 */
export function AdminLoginSteps() {
  const { user } = useAuth()
  const mfa = useMfaStep(user?.id)
  if (mfa.isPending) return <Spinner label={tA('admin.checking')} className="py-24" />
  if (mfa.isError) {
    return (
      <div role="alert" className="flex flex-col items-center gap-3 py-24">
        <p>{tA('admin.guard.failed')}</p>
        <Button variant="outline" onClick={() => void mfa.refetch()}>
          {tA('admin.retry')}
        </Button>
      </div>
    )
  }
  return mfa.data.required ? <MfaChallengeForm factorId={mfa.data.factorId} /> : <AccessCodeForm />
}
