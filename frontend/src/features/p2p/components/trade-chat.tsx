import { SendIcon } from 'lucide-react'
import { useEffect, useRef, useState, type FormEvent } from 'react'

import { Button } from '@/components/ui/button'
import { Textarea } from '@/components/ui/input'
import { P2P_MESSAGE_MAX } from '@/config/p2p'
import { toast } from '@/hooks/use-toast'
import { useP2pTranslation } from '@/lib/i18n/p2p'
import { cn } from '@/lib/utils'

import { useTradeMessages } from '../api/get-trade'
import { serverError } from '../api/server-error'
import { useSendTradeMessage } from '../api/trade-actions'

/** The trade's chat (p2p_trade_messages), live through the page's realtime channel. */
export function TradeChat({ tradeId, userId, names }: { tradeId: string; userId: string; names: Record<string, string> }) {
  const { tP2p } = useP2pTranslation()
  const messages = useTradeMessages(tradeId)
  const send = useSendTradeMessage(tradeId, userId)
  const [body, setBody] = useState('')
  const list = useRef<HTMLOListElement>(null)
  const count = messages.data?.length ?? 0
  useEffect(() => {
    list.current?.lastElementChild?.scrollIntoView?.({ block: 'nearest' })
  }, [count])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const text = body.trim()
    if (!text) return
    send.mutate(text, {
      onSuccess: () => setBody(''),
      onError: (error) => toast({ title: tP2p('p2p.chat.failed'), description: serverError(error)?.message, variant: 'destructive' }),
    })
  }

  return (
    <section aria-labelledby="trade-chat" className="flex flex-col gap-3 rounded-lg border p-4">
      <h2 id="trade-chat" className="font-semibold">
        {tP2p('p2p.chat.title')}
      </h2>
      {messages.isError ? (
        <p role="alert" className="text-sm text-destructive">
          {tP2p('p2p.chat.loadFailed')}
        </p>
      ) : count === 0 ? (
        <p className="text-sm text-muted-foreground">{messages.isPending ? '…' : tP2p('p2p.chat.empty')}</p>
      ) : (
        <ol ref={list} className="flex max-h-80 flex-col gap-2 overflow-y-auto" aria-live="polite" aria-label={tP2p('p2p.chat.title')}>
          {messages.data?.map((m) => {
            const mine = m.sender_id === userId
            return (
              <li key={m.id} className={cn('max-w-[85%] rounded-lg px-3 py-2 text-sm', mine ? 'self-end bg-primary text-primary-foreground' : 'self-start bg-muted')}>
                <p className="text-xs opacity-80">
                  {mine ? tP2p('p2p.page.you') : (names[m.sender_id] ?? tP2p('p2p.page.admin'))} ·{' '}
                  {new Date(m.created_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
                </p>
                <p className="break-words whitespace-pre-wrap">{m.body}</p>
              </li>
            )
          })}
        </ol>
      )}
      <form onSubmit={submit} className="flex items-end gap-2">
        <label className="sr-only" htmlFor="trade-chat-body">
          {tP2p('p2p.chat.message')}
        </label>
        <Textarea
          id="trade-chat-body"
          rows={2}
          maxLength={P2P_MESSAGE_MAX}
          value={body}
          placeholder={tP2p('p2p.chat.message')}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) submit(e)
          }}
        />
        <Button type="submit" disabled={send.isPending || body.trim() === ''}>
          <SendIcon aria-hidden="true" />
          {tP2p('p2p.chat.send')}
        </Button>
      </form>
    </section>
  )
}
