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
