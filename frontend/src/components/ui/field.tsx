import * as LabelPrimitive from '@radix-ui/react-label'
import type { ComponentProps } from 'react'

import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

function Label({ className, ...props }: ComponentProps<typeof LabelPrimitive.Root>) {
  return (
    <LabelPrimitive.Root
      data-slot="label"
      className={cn('flex items-center gap-2 text-sm leading-none font-medium select-none', className)}
      {...props}
    />
  )
}

function Field({ className, ...props }: ComponentProps<'div'>) {
  return <div role="group" data-slot="field" className={cn('flex flex-col gap-2', className)} {...props} />
}

function FieldLabel(props: ComponentProps<typeof Label>) {
  return <Label data-slot="field-label" {...props} />
}

function FieldDescription({ className, ...props }: ComponentProps<'p'>) {
  return <p data-slot="field-description" className={cn('text-sm text-muted-foreground', className)} {...props} />
}

/**
 * A field's validation message; renders nothing without one. `error` takes a
 * react-hook-form error whose message is a catalogue key (see lib/validation).
 */
function FieldError({ className, children, error, ...props }: ComponentProps<'p'> & { error?: { message?: string } }) {
  const { t } = useTranslation()
  const content = children ?? (error?.message ? t(error.message as MessageKey) : null)
  if (!content) return null
  return (
    <p role="alert" data-slot="field-error" className={cn('text-sm text-destructive', className)} {...props}>
      {content}
    </p>
  )
}

export { Field, FieldDescription, FieldError, FieldLabel, Label }
