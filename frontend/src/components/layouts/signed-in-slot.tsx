import { Suspense, type ReactNode } from 'react'

import { useAuth } from '@/lib/auth'

/**
 * Parts of the shell that only signed-in users have (the inbox badges and
 * the notifications bell), handed in by the router as lazily loaded
 * elements: they render, and so download, only once the session is known
 * to be signed in, never on a visitor's landing page.
 */
export type ShellInbox = {
  /** Beside the account button in the top bar. */
  navbar?: ReactNode
  /** Over the Messages icon of the phone bar. */
  messagesBadge?: ReactNode
}

/** Renders `children` for a signed-in user only, nothing while they load. */
export function SignedInSlot({ children }: { children: ReactNode }) {
  const { status } = useAuth()
  if (status !== 'signed-in' || !children) return null
  return <Suspense fallback={null}>{children}</Suspense>
}
