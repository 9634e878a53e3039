import { TimerIcon } from 'lucide-react'
import { useEffect, useState } from 'react'

import { useP2pTranslation } from '@/lib/i18n/p2p'
import { cn } from '@/lib/utils'

import { remaining } from './format'

/** A live countdown to `deadline` under `label`; 'Time is up' once it passes. */
export function Countdown({ label, deadline }: { label: string; deadline: string }) {
  const { tP2p } = useP2pTranslation()
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000)
    return () => window.clearInterval(timer)
  }, [])
  const left = remaining(deadline, now)
  return (
    <div
      role="timer"
      aria-label={label}
      className={cn('flex items-center gap-2 rounded-md border px-3 py-2 text-sm', !left && 'border-destructive/50 text-destructive')}
    >
      <TimerIcon className="size-4" aria-hidden="true" />
      <span>{label}</span>
      <span className="ml-auto font-mono text-base font-semibold tabular-nums" data-testid="countdown">
        {left ?? tP2p('p2p.page.deadlinePassed')}
      </span>
    </div>
  )
}
