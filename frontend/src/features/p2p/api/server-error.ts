/** The server's refusal, as PostgREST sent it: message, and detail or hint when present. */
export type ServerError = { message: string; detail?: string }

/** Reads a supabase-js error (PostgrestError, AuthError, Error) into what the screens show verbatim. */
export function serverError(error: unknown): ServerError | null {
  if (!error || typeof error !== 'object' || !('message' in error)) return null
  const { message, details, hint } = error as { message?: unknown; details?: unknown; hint?: unknown }
  if (typeof message !== 'string' || message === '') return null
  const extra = [details, hint].filter((part): part is string => typeof part === 'string' && part !== '')
  return extra.length ? { message, detail: extra.join(' ') } : { message }
}
