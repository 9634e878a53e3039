import { useEffect, useState } from 'react'

/** Counts from 0 to `target` over `durationMs` (spec §9: 2 seconds on the redirect screen). */
export function useCountUp(target: number, durationMs = 2000): number {
  const [value, setValue] = useState(0)

  useEffect(() => {
    if (typeof window.requestAnimationFrame !== 'function') {
      setValue(target)
      return
    }
    let frame = 0
    const start = performance.now()
    const step = (now: number) => {
      const progress = Math.min(1, (now - start) / durationMs)
      setValue(Math.round(target * progress))
      if (progress < 1) frame = window.requestAnimationFrame(step)
    }
    frame = window.requestAnimationFrame(step)
    return () => window.cancelAnimationFrame(frame)
  }, [target, durationMs])

  return value
}
