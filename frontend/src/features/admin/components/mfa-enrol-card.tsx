import { zodResolver } from '@hookform/resolvers/zod'
import { ShieldPlusIcon } from 'lucide-react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { tA } from '@/lib/i18n/admin'
import type { AdminKey } from '@/lib/i18n/en-admin'

import { useEnrolTotp, useHasTotpFactor, useVerifyMfa } from '../api/admin-access'

const schema = z.object({ code: z.string().trim().regex(/^\d{6}$/, 'admin.mfa.codeFormat') })
type Values = z.infer<typeof schema>

/**
 * Two-factor setup for an admin without a verified TOTP factor: enrol
 * (QR code and setup key), then the first 6-digit code verifies the factor
 * and lifts this session to aal2. Hidden once a factor is verified.
 */
export function MfaEnrolCard() {
  const { user } = useAuth()
  const hasFactor = useHasTotpFactor(user?.id)
  const enrol = useEnrolTotp()
  const verify = useVerifyMfa()
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { code: '' } })
  const error = form.formState.errors.code

  // Unknown (loading or failed) counts as "has one": the card is an offer, not a gate.
  if (hasFactor.data !== false) return null

  const start = async () => {
    try {
      await enrol.mutateAsync()
    } catch {
      toast({ title: tA('admin.mfaEnrol.failed'), variant: 'destructive' })
    }
  }

  const onSubmit = form.handleSubmit(async ({ code }) => {
    if (!enrol.data) return
    try {
      await verify.mutateAsync({ factorId: enrol.data.factorId, code })
      toast({ title: tA('admin.mfaEnrol.success'), variant: 'success' })
    } catch (failure) {
      const reason = (failure as { code?: string }).code
      toast({ title: tA(reason === 'mfa_verification_failed' ? 'admin.mfa.invalid' : 'admin.mfa.failed'), variant: 'destructive' })
      form.setValue('code', '')
      form.setFocus('code')
    }
  })

  return (
    <Card>
      <CardHeader className="flex flex-row items-center gap-3">
        <ShieldPlusIcon className="size-8 shrink-0 text-primary" aria-hidden="true" />
        <div>
          <h2 className="leading-none font-semibold">{tA('admin.mfaEnrol.title')}</h2>
          <p className="mt-1 text-sm text-muted-foreground">{tA('admin.mfaEnrol.intro')}</p>
        </div>
      </CardHeader>
      <CardContent>
        {!enrol.data ? (
          <Button onClick={() => void start()} disabled={enrol.isPending}>
            {enrol.isPending ? tA('admin.mfaEnrol.starting') : tA('admin.mfaEnrol.start')}
          </Button>
        ) : (
          <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
            <img src={enrol.data.qrCode} alt={tA('admin.mfaEnrol.qr')} className="size-44 rounded border bg-scan-surface p-2" />
            <form noValidate onSubmit={onSubmit} className="flex flex-1 flex-col gap-3">
              <p className="text-sm">{tA('admin.mfaEnrol.scan')}</p>
              <p className="text-sm">
                <span className="text-muted-foreground">{tA('admin.mfaEnrol.secret')}: </span>
                <code className="break-all" data-testid="totp-secret">
                  {enrol.data.secret}
                </code>
              </p>
              <Field>
                <FieldLabel htmlFor="admin-mfa-enrol-code">{tA('admin.mfa.code')}</FieldLabel>
                <Input
                  id="admin-mfa-enrol-code"
                  type="text"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  aria-invalid={!!error}
                  aria-describedby={error ? 'admin-mfa-enrol-code-error' : undefined}
                  {...form.register('code')}
                />
                {error?.message && <FieldError id="admin-mfa-enrol-code-error">{tA(error.message as AdminKey)}</FieldError>}
              </Field>
              <Button type="submit" disabled={verify.isPending} className="self-start">
                {verify.isPending ? tA('admin.login.checking') : tA('admin.mfa.submit')}
              </Button>
            </form>
          </div>
        )}
      </CardContent>
    </Card>
  )
}
