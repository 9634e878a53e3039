import { MessagesBarBadge, MessagesNavLink } from '@/features/messages/components/messages-indicators'
import { NotificationBell } from '@/features/notifications/components/notification-bell'

/**
 * The signed-in user's inbox in the shell, one lazily loaded chunk: the
 * Messages link and the notifications bell in the top bar (`navbar`), the
 * unread count on the phone bar's Messages item (`bar`).
 */
export function InboxShell({ place }: { place: 'navbar' | 'bar' }) {
  if (place === 'bar') return <MessagesBarBadge />
  return (
    <>
      <MessagesNavLink />
      <NotificationBell />
    </>
  )
}
