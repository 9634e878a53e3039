import { zodResolver } from '@hookform/resolvers/zod'
import { FlagIcon } from 'lucide-react'
import { useId, useState } from 'react'
import { useForm } from 'react-hook-form'
import type { z } from 'zod'

import { Button } from '@/components/ui/button'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { REPORT_REASON_MAX_LENGTH } from '@/config/inbox'
import { toast } from '@/hooks/use-toast'
import { useInboxTranslation } from '@/lib/i18n/inbox'

import type { ConversationSummary } from '../api/get-conversations'
import { AlreadyReportedError, reportRow, reportSchema, useCreateReport, type ReportValues } from '../api/report'

type ReportInput = z.input<typeof reportSchema>

/**
 * "Report" in a conversation: the user tells the admins what is wrong with
 * the conversation or with the listing it is about (a reason of 3 to 1000
 * characters). A second open report of the same thing is refused with a
 * clear "already reported".
 */
export function ReportDialog({ conversation }: { conversation: Pick<ConversationSummary, 'id' | 'listing_kind' | 'listing_id'> }) {
  const { tInbox } = useInboxTranslation()
  const id = useId()
  const [open, setOpen] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const report = useCreateReport()
  const form = useForm<ReportInput, unknown, ReportValues>({
    resolver: zodResolver(reportSchema),
    defaultValues: { target: 'conversation', reason: '' },
  })
  const error = form.formState.errors.reason
  const length = form.watch('reason').trim().length

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    try {
      await report.mutateAsync(reportRow(values, conversation))
      setOpen(false)
      form.reset()
      toast({ title: tInbox('inbox.report.sent'), description: tInbox('inbox.report.sentHint'), variant: 'success' })
    } catch (cause) {
      setFailure(
        cause instanceof AlreadyReportedError
          ? tInbox('inbox.report.already')
          : `${tInbox('inbox.report.failed')}${cause instanceof Error && cause.message ? ` (${cause.message})` : ''}`,
      )
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
        <Button variant="ghost" size="sm">
          <FlagIcon aria-hidden="true" />
          {tInbox('inbox.report.button')}
        </Button>
      </DialogTrigger>
      <DialogContent closeLabel={tInbox('inbox.close')}>
        <DialogTitle>{tInbox('inbox.report.title')}</DialogTitle>
        <DialogDescription>{tInbox('inbox.report.description')}</DialogDescription>
        <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-2 text-sm font-medium">{tInbox('inbox.report.target')}</legend>
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" value="conversation" className="accent-primary" {...form.register('target')} />
              {tInbox('inbox.report.targetConversation')}
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" value="listing" className="accent-primary" {...form.register('target')} />
              {tInbox('inbox.report.targetListing')}
            </label>
          </fieldset>
          <Field>
            <FieldLabel htmlFor={id}>{tInbox('inbox.report.reason')}</FieldLabel>
            <Textarea
              id={id}
              rows={4}
              placeholder={tInbox('inbox.report.placeholder')}
              aria-invalid={Boolean(error)}
              aria-describedby={error ? `${id}-error` : undefined}
              {...form.register('reason', { onChange: () => setFailure(null) })}
            />
            <span className="self-end text-xs text-muted-foreground tabular-nums">
              {length}/{REPORT_REASON_MAX_LENGTH}
            </span>
            <FieldError id={`${id}-error`} error={error} />
          </Field>
          {failure && (
            <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive">
              {failure}
            </p>
          )}
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline">
                {tInbox('inbox.cancel')}
              </Button>
            </DialogClose>
            <Button type="submit" variant="destructive" disabled={form.formState.isSubmitting}>
              {tInbox('inbox.report.submit')}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
