import { zodResolver } from '@hookform/resolvers/zod'
import { StarIcon } from 'lucide-react'
import { Controller, useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useP2pTranslation } from '@/lib/i18n/p2p'
import { cn } from '@/lib/utils'

import { serverError } from '../api/server-error'
import { ratingSchema, useRateTrade } from '../api/trade-actions'

type RatingInput = { stars: number; comment: string }

/** Rates the counterparty of a completed trade: 1-5 stars and an optional comment, once. */
export function RatingForm({ tradeId, name }: { tradeId: string; name: string }) {
  const { tP2p } = useP2pTranslation()
  const rate = useRateTrade(tradeId)
  const form = useForm<RatingInput>({ resolver: zodResolver(ratingSchema), defaultValues: { stars: 0, comment: '' } })
  const submit = form.handleSubmit((input) =>
    rate.mutateAsync(input).then(
      () => toast({ title: tP2p('p2p.rating.done'), variant: 'success' }),
      (error: unknown) => toast({ title: tP2p('p2p.action.failed'), description: serverError(error)?.message, variant: 'destructive' }),
    ),
  )
  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-3 rounded-lg border p-4" aria-labelledby="rate-title">
      <h2 id="rate-title" className="font-semibold">
        {tP2p('p2p.rating.title', { name })}
      </h2>
      <Controller
        control={form.control}
        name="stars"
        render={({ field, fieldState }) => (
          <fieldset>
            <legend className="mb-1 text-sm font-medium">{tP2p('p2p.rating.stars')}</legend>
            <div role="radiogroup" aria-label={tP2p('p2p.rating.stars')} className="flex gap-1">
              {[1, 2, 3, 4, 5].map((n) => (
                <button
                  key={n}
                  type="button"
                  role="radio"
                  aria-checked={field.value === n}
                  aria-label={n === 1 ? tP2p('p2p.rating.star', { count: n }) : tP2p('p2p.rating.starsN', { count: n })}
                  onClick={() => field.onChange(n)}
                  className="rounded p-1 focus-visible:ring-[3px] focus-visible:ring-ring/50"
                >
                  <StarIcon className={cn('size-6', n <= field.value ? 'fill-warning text-warning' : 'text-muted-foreground')} aria-hidden="true" />
                </button>
              ))}
            </div>
            <FieldError error={fieldState.error} />
          </fieldset>
        )}
      />
      <Field>
        <FieldLabel htmlFor="rating-comment">{tP2p('p2p.rating.comment')}</FieldLabel>
        <Textarea id="rating-comment" rows={2} {...form.register('comment')} aria-invalid={Boolean(form.formState.errors.comment)} />
        <FieldError error={form.formState.errors.comment} />
      </Field>
      <Button type="submit" className="self-start" disabled={rate.isPending}>
        {tP2p('p2p.rating.submit')}
      </Button>
    </form>
  )
}
