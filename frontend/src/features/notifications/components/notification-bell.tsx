import { BellIcon, CheckCheckIcon } from 'lucide-react'
import { useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu'
import { BADGE_MAX } from '@/config/inbox'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { formatRelativeTime } from '@/lib/relative-time'
import { ShellQueryProvider } from '@/lib/shell-query-provider'
import { cn } from '@/lib/utils'

import { useNotifications, useUnreadNotificationCount, type Notification } from '../api/get-notifications'
import { useMarkNotificationsRead } from '../api/mark-read'
import { useNotificationsRealtime } from '../api/realtime'
import { notificationText } from './notification-text'

function NotificationItem({ notification, onOpen }: { notification: Notification; onOpen(notification: Notification): void }) {
  const { lang } = useInboxTranslation()
  const { title, body } = notificationText(notification, lang)
  const unread = notification.read_at === null
  return (
    <DropdownMenuItem
      data-unread={unread || undefined}
      onSelect={() => onOpen(notification)}
      className="flex items-start gap-3 py-2.5"
    >
      <span
        aria-hidden="true"
        className={cn('mt-1.5 size-2 shrink-0 rounded-full', unread ? 'bg-primary' : 'bg-transparent')}
      />
      <span className="flex min-w-0 flex-col gap-0.5">
        <span className={cn('text-sm', unread ? 'font-semibold' : 'font-medium')}>{title}</span>
        {body && <span className="line-clamp-2 text-xs text-muted-foreground">{body}</span>}
        <time dateTime={notification.created_at} className="text-xs text-muted-foreground">
          {formatRelativeTime(notification.created_at, lang)}
        </time>
      </span>
    </DropdownMenuItem>
  )
}

function NotificationList({ userId, unread }: { userId: string; unread: number }) {
  const { tInbox } = useInboxTranslation()
  const navigate = useNavigate()
  const notifications = useNotifications(userId)
  const markRead = useMarkNotificationsRead(userId)
  const failed = () => toast({ title: tInbox('inbox.bell.markFailed'), variant: 'destructive' })

  const open = (notification: Notification) => {
    if (notification.read_at === null) markRead.mutate(notification.id, { onError: failed })
    if (notification.link?.startsWith('/')) void navigate(notification.link)
  }

  return (
    <>
      <DropdownMenuLabel className="text-base">{tInbox('inbox.bell.title')}</DropdownMenuLabel>
      <DropdownMenuItem
        disabled={unread === 0 || markRead.isPending}
        onSelect={(event) => {
          // Stay open: the list shows everything read.
          event.preventDefault()
          markRead.mutate(undefined, { onError: failed })
        }}
        className="text-primary"
      >
        <CheckCheckIcon aria-hidden="true" />
        {tInbox('inbox.bell.markAll')}
      </DropdownMenuItem>
      <DropdownMenuSeparator />
      {notifications.isPending ? (
        <p role="status" className="px-3 py-6 text-center text-sm text-muted-foreground">
          {tInbox('inbox.bell.loading')}
        </p>
      ) : notifications.isError ? (
        <div role="alert" className="flex flex-col items-center gap-2 px-3 py-6 text-center text-sm">
          <p>{tInbox('inbox.bell.loadFailed')}</p>
          <Button variant="outline" size="sm" onClick={() => void notifications.refetch()}>
            {tInbox('inbox.retry')}
          </Button>
        </div>
      ) : notifications.data.length === 0 ? (
        <p className="px-3 py-6 text-center text-sm text-muted-foreground">{tInbox('inbox.bell.empty')}</p>
      ) : (
        notifications.data.map((notification) => <NotificationItem key={notification.id} notification={notification} onOpen={open} />)
      )}
    </>
  )
}

function Bell() {
  const { tInbox } = useInboxTranslation()
  const { user } = useAuth()
  const unread = useUnreadNotificationCount(user?.id)
  useNotificationsRealtime(user?.id, unread.isSuccess)
  const count = unread.data ?? 0
  if (!user) return null
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" className="relative" data-unread={count > 0 ? count : undefined}>
          <BellIcon className="size-5" aria-hidden="true" />
          <span className="sr-only">{count > 0 ? tInbox('inbox.bell.labelUnread', { count }) : tInbox('inbox.bell.label')}</span>
          {count > 0 && (
            <span
              aria-hidden="true"
              className="absolute -top-0.5 -right-0.5 inline-flex h-4 min-w-4 items-center justify-center rounded-full bg-destructive px-1 text-[10px] leading-none font-semibold text-destructive-foreground tabular-nums"
            >
              {count > BADGE_MAX ? `${BADGE_MAX}+` : count}
            </span>
          )}
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-[min(24rem,calc(100vw-1rem))]">
        <NotificationList userId={user.id} unread={count} />
      </DropdownMenuContent>
    </DropdownMenu>
  )
}

/**
 * The notifications bell of the top bar (signed-in users): the unread
 * count, kept live through Realtime, and a menu of the newest 20 with "Mark
 * all read"; choosing one marks it read and follows its link.
 */
export function NotificationBell() {
  return (
    <ShellQueryProvider>
      <Bell />
    </ShellQueryProvider>
  )
}
