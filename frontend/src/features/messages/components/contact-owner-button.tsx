import { zodResolver } from '@hookform/resolvers/zod'
import { MessageCircleIcon } from 'lucide-react'
import { useId, useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, useLocation, useNavigate } from 'react-router'
import type { z } from 'zod'

import type { ListingContactProps } from '@/components/listings/listing-contact'
import { Button } from '@/components/ui/button'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { conversationPath, paths, type LoginRedirectState } from '@/config/paths'
import { MESSAGE_MAX_LENGTH } from '@/config/inbox'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import type { ListingKind } from '@/lib/listing-fees'

import { messageFormSchema, type MessageFormValues } from '../api/send-message'
import { useStartConversation } from '../api/start-conversation'
import { sendFailureText } from './message-composer'

type MessageFormInput = z.input<typeof messageFormSchema>

/** The dialog in which a signed-in user writes to a listing's owner. */
function ContactOwnerDialog({ kind, listingId }: { kind: ListingKind; listingId: string }) {
  const { tInbox } = useInboxTranslation()
  const id = useId()
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const start = useStartConversation()
  const form = useForm<MessageFormInput, unknown, MessageFormValues>({
    resolver: zodResolver(messageFormSchema),
    defaultValues: { body: '' },
  })
  const error = form.formState.errors.body
  const length = form.watch('body').trim().length

  const onSubmit = form.handleSubmit(async ({ body }) => {
    setFailure(null)
    try {
      const conversationId = await start.mutateAsync({ kind, listingId, body })
      setOpen(false)
      form.reset({ body: '' })
      toast({ title: tInbox('inbox.contact.sent'), variant: 'success' })
      void navigate(conversationPath(conversationId))
    } catch (cause) {
      setFailure(sendFailureText(cause, tInbox))
    }
  })

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next)
        if (!next) setFailure(null)
      }}
    >
      <DialogTrigger asChild>
        <Button size="lg" variant="secondary">
          <MessageCircleIcon aria-hidden="true" />
          {tInbox('inbox.contact.button')}
        </Button>
      </DialogTrigger>
      <DialogContent closeLabel={tInbox('inbox.close')}>
        <DialogTitle>{tInbox('inbox.contact.title')}</DialogTitle>
        <DialogDescription>{tInbox('inbox.contact.description')}</DialogDescription>
        <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <Field>
            <FieldLabel htmlFor={id}>{tInbox('inbox.contact.label')}</FieldLabel>
            <Textarea
              id={id}
              rows={5}
              placeholder={tInbox('inbox.contact.placeholder')}
              aria-invalid={Boolean(error || failure)}
              aria-describedby={error || failure ? `${id}-error` : undefined}
              {...form.register('body', { onChange: () => setFailure(null) })}
            />
            <span className="self-end text-xs text-muted-foreground tabular-nums">
              {length}/{MESSAGE_MAX_LENGTH}
            </span>
            <FieldError id={`${id}-error`} error={failure ? undefined : error}>
              {failure ?? undefined}
            </FieldError>
          </Field>
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline">
                {tInbox('inbox.cancel')}
              </Button>
            </DialogClose>
            <Button type="submit" disabled={form.formState.isSubmitting}>
              {form.formState.isSubmitting ? tInbox('inbox.contact.sending') : tInbox('inbox.contact.send')}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}

/**
 * "Message the owner" on a listing's detail page: a signed-in user who is
 * not the owner writes in a dialog (start_conversation) and lands in the
 * conversation; a visitor gets a sign-in link that brings them back here.
 * The owner sees nothing (their own listing's state is shown instead).
 */
export function ContactOwnerButton({ kind, id, ownerId }: ListingContactProps) {
  const { tInbox } = useInboxTranslation()
  const { status, user } = useAuth()
  const location = useLocation()
  if (status === 'signed-out') {
    const state: LoginRedirectState = { from: `${location.pathname}${location.search}` }
    return (
      <Link to={paths.login} state={state} className="text-sm font-medium text-primary hover:underline">
        {tInbox('inbox.contact.signIn')}
      </Link>
    )
  }
  if (status !== 'signed-in' || !user || user.id === ownerId) return null
  return <ContactOwnerDialog kind={kind} listingId={id} />
}
