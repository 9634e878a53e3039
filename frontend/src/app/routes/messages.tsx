import { MessagesSquareIcon } from 'lucide-react'
import { useParams } from 'react-router'

import { RequireAuth } from '@/features/auth/components/require-auth'
import { useMessagesRealtime } from '@/features/messages/api/realtime'
import { ConversationList } from '@/features/messages/components/conversation-list'
import { MessageThread } from '@/features/messages/components/message-thread'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { cn } from '@/lib/utils'

function MessagesPage() {
  const { t, tInbox } = useInboxTranslation()
  const { user } = useAuth()
  const conversationId = useParams().id
  useMessagesRealtime(user?.id)
  useDocumentMeta(`${tInbox('inbox.title')} | ${t('app.name')}`, tInbox('inbox.intro'))
  if (!user) return null
  const open = Boolean(conversationId)

  return (
    <div className="mx-auto flex max-w-6xl flex-col md:px-4 md:py-6">
      {/* On a phone an open conversation takes the screen; its title stays for screen readers. */}
      <div className={cn(open && 'sr-only md:not-sr-only')}>
        <header className="px-4 py-4 md:px-0 md:pt-0">
          <h1 className="text-2xl font-bold tracking-tight">{tInbox('inbox.title')}</h1>
          <p className="text-sm text-muted-foreground">{tInbox('inbox.intro')}</p>
        </header>
      </div>
      {/* Phones show the list or the open conversation; wider screens both, side by side. */}
      <div className="grid grid-cols-1 md:h-[calc(100dvh-13rem)] md:min-h-[30rem] md:grid-cols-[20rem_minmax(0,1fr)] md:overflow-hidden md:rounded-xl md:border">
        <div className={cn('min-w-0 overflow-y-auto p-2 md:border-r', open && 'hidden md:block')}>
          <ConversationList userId={user.id} activeId={conversationId} />
        </div>
        <div className={cn('h-[calc(100dvh-8rem)] min-h-0 min-w-0 md:h-auto', open ? 'flex flex-col' : 'hidden md:flex md:flex-col')}>
          {conversationId ? (
            <MessageThread key={conversationId} userId={user.id} conversationId={conversationId} />
          ) : (
            <div className="flex flex-1 flex-col items-center justify-center gap-2 p-8 text-center text-muted-foreground">
              <MessagesSquareIcon className="size-10" aria-hidden="true" />
              <p>{tInbox('inbox.pick')}</p>
            </div>
          )}
        </div>
      </div>
    </div>
  )
}

/**
 * /messages and /messages/:id: the signed-in user's conversations about
 * listings and the open thread, kept live through Realtime. Signed-out
 * visitors go to /login and come back.
 */
export function MessagesRoute() {
  return (
    <RequireAuth>
      <MessagesPage />
    </RequireAuth>
  )
}
