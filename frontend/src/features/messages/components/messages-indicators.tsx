import { MessageCircleIcon } from 'lucide-react'
import { Link, useLocation } from 'react-router'

import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { ShellQueryProvider } from '@/lib/shell-query-provider'
import { cn } from '@/lib/utils'

import { useUnreadMessageCount } from '../api/get-conversations'
import { useMessagesRealtime } from '../api/realtime'
import { badgeNumber } from './unread-count'

/** The signed-in user's unread message count, kept live; 0 until known. */
function useLiveUnreadCount(): number {
  const { user } = useAuth()
  const unread = useUnreadMessageCount(user?.id)
  // Live once the first read worked: with no inbox to read there is nothing to keep live.
  useMessagesRealtime(user?.id, unread.isSuccess)
  return unread.data ?? 0
}

function NavMessagesLink() {
  const { tInbox } = useInboxTranslation()
  const { pathname } = useLocation()
  const count = useLiveUnreadCount()
  const active = pathname === paths.messages || pathname.startsWith(`${paths.messages}/`)
  return (
    <Link
      to={paths.messages}
      aria-current={active ? 'page' : undefined}
      data-unread={count > 0 ? count : undefined}
      className={cn(
        'relative hidden size-9 items-center justify-center rounded-md text-muted-foreground transition-colors hover:bg-accent hover:text-accent-foreground md:inline-flex',
        active && 'text-primary',
      )}
    >
      <MessageCircleIcon className="size-5" aria-hidden="true" />
      <span className="sr-only">
        {count > 0 ? tInbox('inbox.nav.messagesUnread', { count }) : tInbox('inbox.nav.messages')}
      </span>
      {count > 0 && (
        <span
          aria-hidden="true"
          className="absolute -top-0.5 -right-0.5 inline-flex h-4 min-w-4 items-center justify-center rounded-full bg-destructive px-1 text-[10px] leading-none font-semibold text-destructive-foreground tabular-nums"
        >
          {badgeNumber(count)}
        </span>
      )}
    </Link>
  )
}

/** The top bar's Messages link (from 768 px up) with the unread count. */
export function MessagesNavLink() {
  return (
    <ShellQueryProvider>
      <NavMessagesLink />
    </ShellQueryProvider>
  )
}

function BarBadge() {
  const { tInbox } = useInboxTranslation()
  const count = useLiveUnreadCount()
  if (count <= 0) return null
  return (
    <span data-unread={count}>
      <span
        aria-hidden="true"
        className="absolute top-0 right-1 inline-flex h-4 min-w-4 items-center justify-center rounded-full bg-destructive px-1 text-[10px] leading-none font-semibold text-destructive-foreground tabular-nums"
      >
        {badgeNumber(count)}
      </span>
      <span className="sr-only"> {tInbox('inbox.unreadCount', { count })}</span>
    </span>
  )
}

/** The unread count on the phone bar's Messages item (in its top right corner). */
export function MessagesBarBadge() {
  return (
    <ShellQueryProvider>
      <BarBadge />
    </ShellQueryProvider>
  )
}
