/**
 * Limits of /messages, reports and notifications, as the database enforces
 * them (sql/migrations/0024_inbox.sql).
 */

/** A message body: 1 to 2000 characters once trimmed (messages_body_check, start_conversation). */
export const MESSAGE_MAX_LENGTH = 2000
/** A report's reason: 3 to 1000 characters once trimmed (reports_reason_check). */
export const REPORT_REASON_MIN_LENGTH = 3
export const REPORT_REASON_MAX_LENGTH = 1000
/** How many messages a thread loads (the newest). */
export const THREAD_PAGE_SIZE = 200
/** How many notifications the bell lists (the newest). */
export const NOTIFICATIONS_SHOWN = 20
/** Badges show this number at most, then "99+". */
export const BADGE_MAX = 99
