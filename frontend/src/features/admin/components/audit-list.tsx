import { formatDate } from '@/lib/format'
import { useAdminTranslation } from '@/lib/i18n/admin'

import type { AuditEntry } from '../api/users'

/** Admin audit rows: when, what and why. */
export function AuditList({ entries, empty }: { entries: AuditEntry[]; empty: string }) {
  const { lang } = useAdminTranslation()
  if (entries.length === 0) return <p className="text-sm text-muted-foreground">{empty}</p>
  return (
    <ul className="flex flex-col gap-1 text-sm">
      {entries.map((entry) => (
        <li key={entry.id} className="flex flex-wrap gap-x-2">
          <time dateTime={entry.created_at} className="text-muted-foreground">
            {formatDate(entry.created_at, lang)}
          </time>
          <span className="font-medium" data-action={entry.action}>
            {entry.action}
          </span>
          {entry.reason && <span>— {entry.reason}</span>}
        </li>
      ))}
    </ul>
  )
}
