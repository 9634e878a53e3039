import { LoaderCircleIcon } from 'lucide-react'
import type { ComponentProps } from 'react'

import { cn } from '@/lib/utils'

/** A spinning indicator; `label` is announced to screen readers. */
function Spinner({ className, label, ...props }: ComponentProps<'div'> & { label: string }) {
  return (
    <div
      data-slot="spinner"
      role="status"
      className={cn('flex items-center justify-center text-muted-foreground', className)}
      {...props}
    >
      <LoaderCircleIcon className="size-6 animate-spin" aria-hidden="true" />
      <span className="sr-only">{label}</span>
    </div>
  )
}

export { Spinner }
