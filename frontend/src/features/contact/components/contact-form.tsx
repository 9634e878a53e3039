import { zodResolver } from '@hookform/resolvers/zod'
import { CircleAlertIcon, CircleCheckIcon } from 'lucide-react'
import { useState } from 'react'
import { FormProvider, useForm } from 'react-hook-form'

import { InputField, TextareaField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { useDiscoverTranslation } from '@/lib/i18n/discover'
import { cn } from '@/lib/utils'

import {
  CONTACT_LIMITS,
  contactFailure,
  contactSchema,
  useSendContactMessage,
  type ContactFailure,
  type ContactInput,
  type ContactValues,
} from '../api/send-contact-message'

const empty: ContactInput = { firstName: '', lastName: '', email: '', message: '' }

/** Why the last send failed, above the form. */
function FailureAlert({ failure }: { failure: ContactFailure }) {
  const { td } = useDiscoverTranslation()
  const title = failure.kind === 'rate-limited' ? td('contact.tooMany') : td('contact.failed')
  const detail = failure.kind === 'rate-limited' ? td('contact.tooManyHint') : failure.detail
  return (
    <div role="alert" className="flex items-start gap-2 rounded-md border border-destructive/50 bg-destructive/10 p-3 text-sm text-destructive">
      <CircleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div>
        <p className="font-medium">{title}</p>
        {detail && <p>{detail}</p>}
      </div>
    </div>
  )
}

/**
 * The contact form of /contact and /about: first name, last name, email and
 * message, stored for the admins (public.contact_messages; anyone may send,
 * the server limits how often). Sent, it gives way to a thank-you with
 * 'Send another message'.
 */
export function ContactForm({ className }: { className?: string }) {
  const { t, td } = useDiscoverTranslation()
  const send = useSendContactMessage()
  const [sentTo, setSentTo] = useState<string | null>(null)
  const [failure, setFailure] = useState<ContactFailure | null>(null)
  const form = useForm<ContactInput, unknown, ContactValues>({ resolver: zodResolver(contactSchema), defaultValues: empty })

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    send.mutate(values, {
      onSuccess: () => {
        setSentTo(values.email)
        form.reset(empty)
      },
      onError: (error) => setFailure(contactFailure(error)),
    })
  })

  if (sentTo) {
    return (
      <div role="status" className={cn('flex flex-col items-start gap-3 rounded-xl border bg-card p-6', className)}>
        <CircleCheckIcon className="size-8 text-primary" aria-hidden="true" />
        <p className="text-lg font-semibold">{td('contact.sent')}</p>
        <p className="text-muted-foreground">{td('contact.sentBody', { email: sentTo })}</p>
        <Button
          type="button"
          variant="outline"
          onClick={() => {
            setSentTo(null)
            send.reset()
          }}
        >
          {td('contact.sendAnother')}
        </Button>
      </div>
    )
  }

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className={cn('flex flex-col gap-4', className)}>
        {failure && <FailureAlert failure={failure} />}
        <div className="grid gap-4 sm:grid-cols-2">
          <InputField name="firstName" label={t('about.firstName')} autoComplete="given-name" maxLength={CONTACT_LIMITS.nameMax} />
          <InputField name="lastName" label={t('about.lastName')} autoComplete="family-name" maxLength={CONTACT_LIMITS.nameMax} />
        </div>
        <InputField name="email" label={t('about.email')} type="email" autoComplete="email" />
        <TextareaField
          name="message"
          label={t('about.message')}
          rows={5}
          maxLength={CONTACT_LIMITS.messageMax}
          description={td('contact.messageHelp')}
        />
        <Button type="submit" disabled={send.isPending} className="self-start">
          {send.isPending ? td('contact.sending') : t('about.send')}
        </Button>
      </form>
    </FormProvider>
  )
}
