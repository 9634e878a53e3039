import { ArrowLeftIcon, ExternalLinkIcon } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { Link } from 'react-router'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { Button } from '@/components/ui/button'
import { detailPath, paths } from '@/config/paths'
import { useInboxTranslation } from '@/lib/i18n/inbox'
import { formatRelativeTime } from '@/lib/relative-time'
import { cn } from '@/lib/utils'

import { useConversation, type ConversationSummary } from '../api/get-conversations'
import { useMessages, type Message } from '../api/get-messages'
import { useMarkConversationRead } from '../api/mark-read'
import { useSendMessage } from '../api/send-message'
import { listingKindKeys } from './conversation-list'
import { MessageComposer } from './message-composer'
import { ReportDialog } from './report-dialog'

/**
 * Marks the conversation read when it opens and whenever a new message of
 * the other party arrives while it is open (and the tab is visible).
 */
function useMarkReadWhileOpen(userId: string, conversationId: string, ready: boolean, lastIncomingId: string | undefined) {
  const markRead = useMarkConversationRead(userId)
  const { mutate } = markRead
  const marked = useRef<string | null>(null)
  useEffect(() => {
    if (!ready) return
    const key = `${conversationId}:${lastIncomingId ?? ''}`
    const mark = () => {
      if (document.visibilityState === 'hidden' || marked.current === key) return
      marked.current = key
      mutate(conversationId)
    }
    mark()
    document.addEventListener('visibilitychange', mark)
    return () => document.removeEventListener('visibilitychange', mark)
  }, [ready, conversationId, lastIncomingId, mutate])
}

function MessageBubble({ message, mine, otherName }: { message: Message; mine: boolean; otherName: string }) {
  const { tInbox, lang } = useInboxTranslation()
  return (
    <li className={cn('flex flex-col gap-1', mine ? 'items-end' : 'items-start')}>
      <div
        className={cn(
          'max-w-[85%] rounded-2xl px-4 py-2 text-sm whitespace-pre-wrap break-words sm:max-w-[70%]',
          mine ? 'rounded-br-sm bg-primary text-primary-foreground' : 'rounded-bl-sm bg-muted text-foreground',
        )}
      >
        <span className="sr-only">{mine ? tInbox('inbox.thread.you') : otherName}: </span>
        {message.body}
      </div>
      <time dateTime={message.created_at} className="px-1 text-xs text-muted-foreground">
        {formatRelativeTime(message.created_at, lang)}
      </time>
    </li>
  )
}

function ThreadHeader({ conversation }: { conversation: ConversationSummary }) {
  const { tInbox } = useInboxTranslation()
  const kind = conversation.listing_kind
  const title = conversation.listing_title ?? tInbox('inbox.notif.untitledListing')
  return (
    <header className="flex items-start gap-2 border-b p-3">
      <Button asChild variant="ghost" size="icon" className="md:hidden">
        <Link to={paths.messages}>
          <ArrowLeftIcon aria-hidden="true" />
          <span className="sr-only">{tInbox('inbox.thread.back')}</span>
        </Link>
      </Button>
      <div className="min-w-0 flex-1">
        <h2 className="truncate text-lg font-semibold">{conversation.other_party_name}</h2>
        <p className="truncate text-sm text-muted-foreground">
          {tInbox(listingKindKeys[kind] ?? 'inbox.kind.property')} ·{' '}
          <Link to={detailPath[kind](conversation.listing_id)} className="font-medium text-primary hover:underline">
            {title}
            <ExternalLinkIcon className="ml-1 inline size-3" aria-hidden="true" />
          </Link>
        </p>
      </div>
      <ReportDialog conversation={conversation} />
    </header>
  )
}

function ThreadMessages({ userId, conversation }: { userId: string; conversation: ConversationSummary }) {
  const { tInbox } = useInboxTranslation()
  const messages = useMessages(conversation.id)
  const send = useSendMessage(userId)
  const end = useRef<HTMLDivElement>(null)
  const list = messages.data ?? []
  const lastIncomingId = list.filter((message) => message.sender_id !== userId).at(-1)?.id
  useMarkReadWhileOpen(userId, conversation.id, messages.isSuccess, lastIncomingId)

  const lastId = list.at(-1)?.id
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' })
  }, [lastId])

  return (
    <>
      <div className="min-h-0 flex-1 overflow-y-auto p-3">
        {messages.isPending ? (
          <ListLoading label={tInbox('inbox.thread.loading')} />
        ) : messages.isError ? (
          <ListError message={tInbox('inbox.thread.loadFailed')} onRetry={() => void messages.refetch()} />
        ) : list.length === 0 ? (
          <p className="py-16 text-center text-muted-foreground">{tInbox('inbox.thread.empty')}</p>
        ) : (
          <div role="log" aria-label={tInbox('inbox.thread.label', { name: conversation.other_party_name })}>
            <ol className="flex flex-col gap-3">
              {list.map((message) => (
                <MessageBubble key={message.id} message={message} mine={message.sender_id === userId} otherName={conversation.other_party_name} />
              ))}
            </ol>
          </div>
        )}
        <div ref={end} />
      </div>
      <MessageComposer onSend={(body) => send.mutateAsync({ conversationId: conversation.id, body })} />
    </>
  )
}

/**
 * /messages/:id: the other party and the listing (with a link to it and
 * Report), the messages oldest first, and the reply box. Opening it marks
 * the conversation read; so does a message arriving while it is open.
 */
export function MessageThread({ userId, conversationId }: { userId: string; conversationId: string }) {
  const { tInbox } = useInboxTranslation()
  const conversation = useConversation(userId, conversationId)

  let content
  if (conversation.isPending) content = <ListLoading label={tInbox('inbox.thread.loading')} />
  else if (conversation.isError)
    content = <ListError message={tInbox('inbox.thread.loadFailed')} onRetry={() => void conversation.refetch()} />
  else if (!conversation.data)
    content = (
      <div className="flex flex-col items-center gap-3 px-4 py-16 text-center">
        <h2 className="text-lg font-semibold">{tInbox('inbox.conversationNotFound')}</h2>
        <p className="text-sm text-muted-foreground">{tInbox('inbox.thread.notFoundHint')}</p>
        <Button asChild variant="outline">
          <Link to={paths.messages}>{tInbox('inbox.thread.back')}</Link>
        </Button>
      </div>
    )
  else
    content = (
      <>
        <ThreadHeader conversation={conversation.data} />
        <ThreadMessages key={conversation.data.id} userId={userId} conversation={conversation.data} />
      </>
    )

  return <section aria-label={tInbox('inbox.thread.region')} className="flex h-full min-h-0 flex-col">{content}</section>
}
