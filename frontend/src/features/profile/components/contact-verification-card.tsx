import '@/lib/i18n/account'
import { CircleCheckIcon, MailIcon, PhoneIcon } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'

import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldDescription, FieldError, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { CODE_VALIDITY_MINUTES, RESEND_COOLDOWN_SECONDS, VERIFICATION_CODE_LENGTH, type ContactChannel } from '@/config/account'
import { useSecondsUntil } from '@/hooks/use-seconds-until'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import {
  useRequestVerificationCode,
  useVerifyContactCode,
  verificationErrorMessage,
} from '../api/contact-verification'
import { isVerified, pendingCodeExpiry, useVerifications, type ContactVerification } from '../api/get-verifications'

const COOLDOWN_MS = RESEND_COOLDOWN_SECONDS * 1000
const VALIDITY_MS = CODE_VALIDITY_MINUTES * 60 * 1000

const copy = {
  email: {
    title: 'verify.emailTitle',
    verified: 'verify.emailVerified',
    failed: 'verify.emailFailed',
    Icon: MailIcon,
  },
  phone: {
    title: 'verify.phoneTitle',
    verified: 'verify.phoneVerified',
    failed: 'verify.phoneFailed',
    Icon: PhoneIcon,
  },
} as const

/**
 * One channel (e-mail or phone): verified or not, and while not, a button
 * that asks the server to send a code (then a 60-second wait before the
 * next), and the code box with Verify. The code is never shown: it arrives
 * by e-mail or SMS.
 */
function ChannelVerification({
  userId,
  channel,
  destination,
  verification,
}: {
  userId: string
  channel: ContactChannel
  destination: string | null
  verification: ContactVerification
}) {
  const { t } = useTranslation()
  const headingId = useId()
  const codeId = useId()
  const request = useRequestVerificationCode()
  const verify = useVerifyContactCode()
  const [code, setCode] = useState('')
  const [codeError, setCodeError] = useState<string | null>(null)
  const [sentAt, setSentAt] = useState<number | null>(null)
  const { title, verified: verifiedKey, failed: failedKey, Icon } = copy[channel]

  const verified = isVerified(verification, channel)
  // A code sent earlier (another visit) is still pending until it expires.
  const expiry = pendingCodeExpiry(verification, channel)
  const serverSentAt = expiry !== null ? expiry - VALIDITY_MS : null
  const lastSent = Math.max(sentAt ?? 0, serverSentAt ?? 0) || null
  const secondsLeft = useSecondsUntil(lastSent !== null ? lastSent + COOLDOWN_MS : null)
  const codePending = !verified && ((sentAt !== null && Date.now() < sentAt + VALIDITY_MS) || (expiry !== null && expiry > Date.now()))

  const send = () => {
    if (channel === 'phone' && !destination) {
      toast({ title: t('verify.needPhone'), variant: 'destructive' })
      return
    }
    request.mutate(
      { userId, channel },
      {
        onSuccess: (sent) => {
          setSentAt(Date.now())
          setCode('')
          setCodeError(null)
          toast({ title: t('verify.codeSent', { destination: sent.destination || destination || '' }), variant: 'success' })
        },
        onError: (error) => toast({ title: verificationErrorMessage(error, t, 'verify.sendFailed'), variant: 'destructive' }),
      },
    )
  }

  const check = (event: FormEvent) => {
    event.preventDefault()
    const value = code.trim()
    if (!value) return
    setCodeError(null)
    verify.mutate(
      { userId, channel, code: value },
      {
        onSuccess: (ok) => {
          if (ok) {
            setCode('')
            setSentAt(null)
            toast({ title: t(verifiedKey), variant: 'success' })
          } else {
            setCodeError(t('verify.invalidCode'))
            toast({ title: t('verify.invalidCode'), variant: 'destructive' })
          }
        },
        onError: (error) => {
          const message = verificationErrorMessage(error, t, failedKey)
          setCodeError(message)
          toast({ title: message, variant: 'destructive' })
        },
      },
    )
  }

  const sendLabel = request.isPending
    ? t('verify.sending')
    : secondsLeft > 0
      ? t('verify.resendIn', { seconds: secondsLeft })
      : codePending
        ? t('verify.resend')
        : t('verify.sendCode')

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3 rounded-lg border p-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 items-start gap-3">
          <Icon className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
          <div className="min-w-0">
            <h3 id={headingId} className="font-medium">
              {t(title)}
            </h3>
            <p className="truncate text-sm text-muted-foreground">
              {destination || (channel === 'phone' ? t('verify.noPhone') : '')}
            </p>
          </div>
        </div>
        {verified ? (
          <Badge variant="success">
            <CircleCheckIcon aria-hidden="true" className="size-3" />
            {t('verify.verified')}
          </Badge>
        ) : (
          <Badge variant="warning">{t('verify.unverified')}</Badge>
        )}
      </div>
      {!verified && (
        <>
          <Button type="button" variant="outline" className="self-start" onClick={send} disabled={request.isPending || secondsLeft > 0}>
            {sendLabel}
          </Button>
          {codePending && (
            <form onSubmit={check} noValidate className="flex flex-wrap items-start gap-2">
              <Field className="min-w-48 flex-1">
                <FieldLabel htmlFor={codeId}>{t('verify.codeLabel')}</FieldLabel>
                <Input
                  id={codeId}
                  value={code}
                  maxLength={VERIFICATION_CODE_LENGTH}
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  placeholder="123456"
                  aria-invalid={Boolean(codeError)}
                  aria-describedby={`${codeId}-description${codeError ? ` ${codeId}-error` : ''}`}
                  onChange={(event) => {
                    setCode(event.target.value.slice(0, VERIFICATION_CODE_LENGTH))
                    setCodeError(null)
                  }}
                />
                <FieldDescription id={`${codeId}-description`}>
                  {t('verify.codeHelp', { minutes: CODE_VALIDITY_MINUTES })}
                </FieldDescription>
                <FieldError id={`${codeId}-error`}>{codeError}</FieldError>
              </Field>
              <Button type="submit" className="mt-6" disabled={!code.trim() || verify.isPending}>
                {verify.isPending ? t('verify.verifying') : t('verify.verify')}
              </Button>
            </form>
          )}
        </>
      )}
    </section>
  )
}

/** Contact verification (spec §2, §4): the e-mail address and the profile's phone number. */
export function ContactVerificationCard({ userId, email, phone }: { userId: string; email: string; phone: string | null }) {
  const { t } = useTranslation()
  const query = useVerifications(userId)

  return (
    <Card>
      <CardHeader>
        <h2 className="leading-none font-semibold">{t('verify.title')}</h2>
        <p className="text-sm text-muted-foreground">{t('verify.intro')}</p>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {query.isPending ? (
          <Spinner label={t('verify.loading')} className="py-6" />
        ) : query.isError ? (
          <div role="alert" className="flex flex-wrap items-center gap-3 text-sm">
            <span className="text-destructive">{t('verify.loadFailed')}</span>
            <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
              {t('listings.tryAgain')}
            </Button>
          </div>
        ) : (
          <>
            <ChannelVerification userId={userId} channel="email" destination={email} verification={query.data} />
            <ChannelVerification userId={userId} channel="phone" destination={phone} verification={query.data} />
          </>
        )}
      </CardContent>
    </Card>
  )
}
