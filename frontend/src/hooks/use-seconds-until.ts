import { useEffect, useState } from 'react'

/**
 * Whole seconds left until `target` (ms since epoch), re-rendering once a
 * second until it passes; 0 when `target` is null or past.
 */
export function useSecondsUntil(target: number | null): number {
  const [, setTick] = useState(0)

  useEffect(() => {
    if (target === null || target <= Date.now()) return
    const timer = setInterval(() => {
      setTick((tick) => tick + 1)
      if (Date.now() >= target) clearInterval(timer)
    }, 1000)
    return () => clearInterval(timer)
  }, [target])

  return target === null ? 0 : Math.max(0, Math.ceil((target - Date.now()) / 1000))
}
