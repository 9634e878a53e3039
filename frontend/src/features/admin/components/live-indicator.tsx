import { tA } from '@/lib/i18n/admin'
import { cn } from '@/lib/utils'

import type { LiveStatus } from '../api/dashboard'

/** The socket state of a live screen: a dot and a word, announced politely when it changes. */
export function LiveIndicator({ status }: { status: LiveStatus }) {
  const label = status === 'live' ? tA('admin.live.live') : status === 'offline' ? tA('admin.live.offline') : tA('admin.live.connecting')
  return (
    <p role="status" aria-live="polite" data-live={status} className="flex items-center gap-2 text-sm text-muted-foreground">
      <span
        aria-hidden="true"
        className={cn(
          'size-2.5 rounded-full',
          status === 'live' && 'animate-pulse bg-success',
          status === 'offline' && 'bg-destructive',
          status === 'connecting' && 'bg-warning',
        )}
      />
      {label}
    </p>
  )
}
