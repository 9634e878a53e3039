import { supabase } from '@/lib/supabase'

/**
 * The admin queues read what awaits a decision apart from the newest rows:
 * a single read of the newest would lose an item that waits while newer
 * ones arrive. uniqueById joins the reads, the first copy of each row kept.
 */
export function uniqueById<T extends { id?: unknown }>(rows: T[]): T[] {
  const seen = new Set<unknown>()
  return rows.filter((row) => {
    if (seen.has(row.id)) return false
    seen.add(row.id)
    return true
  })
}

/** How many rows each read of a queue takes. */
export const queueWindow = 200

/** The tables whose queues are read by waitingThenNewest, all ordered by created_at. */
type QueueTable = 'properties' | 'products' | 'service_providers' | 'kyc_verifications' | 'reports' | 'contact_messages'

export type QueueOptions = {
  signal?: AbortSignal
  /** A column and value both reads keep to (a services section's category). */
  scope?: [column: string, value: string]
}

/**
 * The newest queueWindow rows of table whose column equals value (what
 * awaits an admin), then the newest queueWindow of all, each row once. Both
 * reads walk an index: the table's partial index of waiting rows, and one
 * on created_at (0037, 0041; kyc_verifications' since 0008).
 */
export async function waitingThenNewest<Row extends { id?: unknown }>(
  table: QueueTable,
  columns: string,
  [column, value]: [column: string, value: string | boolean],
  { signal, scope }: QueueOptions = {},
): Promise<Row[]> {
  const read = (waiting: boolean) => {
    const all = supabase.from(table).select(columns)
    const scoped = scope ? all.eq(scope[0], scope[1]) : all
    const query = (waiting ? scoped.eq(column, value) : scoped).order('created_at', { ascending: false }).limit(queueWindow)
    return (signal ? query.abortSignal(signal) : query).overrideTypes<Row[], { merge: false }>().throwOnError()
  }
  const [waiting, newest] = await Promise.all([read(true), read(false)])
  return uniqueById([...(waiting.data ?? []), ...(newest.data ?? [])])
}
