import { zodResolver } from '@hookform/resolvers/zod'
import { SendHorizontalIcon } from 'lucide-react'
import { useId, useState, type KeyboardEvent } from 'react'
import { useForm } from 'react-hook-form'
import type { z } from 'zod'

import { Button } from '@/components/ui/button'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { MESSAGE_MAX_LENGTH } from '@/config/inbox'
import type { InboxKey } from '@/lib/i18n/en-inbox'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { cn } from '@/lib/utils'

import { messageFormSchema, sendErrorKey, type MessageFormValues } from '../api/send-message'

type MessageFormInput = z.input<typeof messageFormSchema>

/** What to say when sending failed: the server's reason when it gave one we know, else a general line with its text. */
export function sendFailureText(error: unknown, tInbox: (key: InboxKey) => string): string {
  const key = sendErrorKey(error)
  if (key) return tInbox(key as InboxKey)
  const detail = error instanceof Error && error.message ? ` (${error.message})` : ''
  return `${tInbox('inbox.sendFailed')}${detail}`
}

/**
 * The reply box under a thread: 1 to 2000 characters; Enter sends,
 * Shift+Enter starts a new line. The text stays when sending fails.
 */
export function MessageComposer({ onSend }: { onSend(body: string): Promise<unknown> }) {
  const { tInbox } = useInboxTranslation()
  const id = useId()
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<MessageFormInput, unknown, MessageFormValues>({
    resolver: zodResolver(messageFormSchema),
    defaultValues: { body: '' },
  })
  const length = form.watch('body').trim().length
  const error = form.formState.errors.body
  const submit = form.handleSubmit(async ({ body }) => {
    setFailure(null)
    try {
      await onSend(body)
      form.reset({ body: '' })
    } catch (cause) {
      setFailure(sendFailureText(cause, tInbox))
    }
  })
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    if (!form.formState.isSubmitting) void submit()
  }
  const over = length > MESSAGE_MAX_LENGTH
  const { ref, ...field } = form.register('body', { onChange: () => setFailure(null) })

  return (
    <form onSubmit={submit} noValidate className="flex items-end gap-2 border-t bg-background p-3">
      <Field className="flex-1 gap-1">
        <FieldLabel htmlFor={id} className="sr-only">
          {tInbox('inbox.composer.label')}
        </FieldLabel>
        <Textarea
          id={id}
          ref={ref}
          rows={2}
          placeholder={tInbox('inbox.composer.placeholder')}
          aria-invalid={Boolean(error || failure)}
          aria-describedby={`${id}-hint${error || failure ? ` ${id}-error` : ''}`}
          className="max-h-40 min-h-11 resize-none"
          onKeyDown={onKeyDown}
          {...field}
        />
        <div className="flex justify-between gap-2 text-xs text-muted-foreground">
          <span id={`${id}-hint`}>{tInbox('inbox.composer.hint')}</span>
          <span className={cn('tabular-nums', over && 'font-medium text-destructive')}>
            {length}/{MESSAGE_MAX_LENGTH}
          </span>
        </div>
        <FieldError id={`${id}-error`} error={failure ? undefined : error}>
          {failure ?? undefined}
        </FieldError>
      </Field>
      <Button type="submit" size="icon" className="mb-6" disabled={form.formState.isSubmitting}>
        <SendHorizontalIcon aria-hidden="true" />
        <span className="sr-only">{tInbox('inbox.composer.send')}</span>
      </Button>
    </form>
  )
}
