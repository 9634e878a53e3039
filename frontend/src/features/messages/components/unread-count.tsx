import { BADGE_MAX } from '@/config/inbox'
import { cn } from '@/lib/utils'

/** A count as badges show it: "99+" above the cap. */
export function badgeNumber(count: number): string {
  return count > BADGE_MAX ? `${BADGE_MAX}+` : String(count)
}

/**
 * A small round count (visual only); `label` is what screen readers hear,
 * e.g. "3 unread". Nothing for zero.
 */
export function UnreadCount({ count, label, className }: { count: number; label: string; className?: string }) {
  if (count <= 0) return null
  return (
    <span data-slot="unread-count" className={cn('inline-flex', className)}>
      <span
        aria-hidden="true"
        className="inline-flex h-5 min-w-5 items-center justify-center rounded-full bg-primary px-1.5 text-xs font-semibold text-primary-foreground tabular-nums"
      >
        {badgeNumber(count)}
      </span>
      <span className="sr-only">{label}</span>
    </span>
  )
}
