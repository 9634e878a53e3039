import { zodResolver } from '@hookform/resolvers/zod'
import { KeyRoundIcon } from 'lucide-react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { tA } from '@/lib/i18n/admin'
import type { AdminKey } from '@/lib/i18n/en-admin'

import { useVerifyMfa } from '../api/admin-access'

const schema = z.object({ code: z.string().trim().regex(/^\d{6}$/, 'admin.mfa.codeFormat') })
type Values = z.infer<typeof schema>

/**
 * The MFA step of /admin/login: an admin with a verified TOTP factor, still
 * at aal1, enters the 6-digit code of the authenticator app. A right code
 * lifts the session to aal2 and the access-code step follows.
 */
export function MfaChallengeForm({ factorId }: { factorId: string }) {
  const verify = useVerifyMfa()
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { code: '' } })
  const error = form.formState.errors.code

  const onSubmit = form.handleSubmit(async ({ code }) => {
    try {
      await verify.mutateAsync({ factorId, code })
      toast({ title: tA('admin.mfa.success'), variant: 'success' })
    } catch (failure) {
      // authsvc answers a wrong or stale code with mfa_verification_failed.
      const code = (failure as { code?: string }).code
      toast({ title: tA(code === 'mfa_verification_failed' ? 'admin.mfa.invalid' : 'admin.mfa.failed'), variant: 'destructive' })
      form.setValue('code', '')
      form.setFocus('code')
    }
  })

  return (
    <Card className="w-full max-w-md">
      <CardHeader className="items-center text-center">
        <KeyRoundIcon className="size-10 text-primary" aria-hidden="true" />
        <h1 className="text-2xl font-bold">{tA('admin.mfa.title')}</h1>
        <p className="text-sm text-muted-foreground">{tA('admin.mfa.intro')}</p>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
          <Field>
            <FieldLabel htmlFor="admin-mfa-code">{tA('admin.mfa.code')}</FieldLabel>
            <Input
              id="admin-mfa-code"
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              autoFocus
              aria-invalid={!!error}
              aria-describedby={error ? 'admin-mfa-code-error' : undefined}
              {...form.register('code')}
            />
            {error?.message && <FieldError id="admin-mfa-code-error">{tA(error.message as AdminKey)}</FieldError>}
          </Field>
          <Button type="submit" disabled={verify.isPending}>
            {verify.isPending ? tA('admin.login.checking') : tA('admin.mfa.submit')}
          </Button>
        </form>
      </CardContent>
    </Card>
  )
}
