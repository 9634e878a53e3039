import { useSyncExternalStore, type ReactNode } from 'react'

/** How many toasts show at once: a new toast replaces the old one. */
export const TOAST_LIMIT = 1
/** How long a toast stays, in milliseconds, unless it sets its own. */
export const TOAST_DURATION = 5000
// Closed toasts stay in the list this long so their exit animation can run.
const TOAST_REMOVE_DELAY = 1000

export type ToastVariant = 'default' | 'info' | 'success' | 'destructive'

export type ToastOptions = {
  title?: ReactNode
  description?: ReactNode
  variant?: ToastVariant
  duration?: number
}

export type ToastItem = ToastOptions & { id: string; open: boolean }

let toasts: ToastItem[] = []
let counter = 0
const listeners = new Set<() => void>()
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>()

function emit(next: ToastItem[]): void {
  toasts = next
  for (const listener of listeners) listener()
}

function scheduleRemoval(id: string): void {
  if (removeTimers.has(id)) return
  removeTimers.set(
    id,
    setTimeout(() => {
      removeTimers.delete(id)
      emit(toasts.filter((item) => item.id !== id))
    }, TOAST_REMOVE_DELAY),
  )
}

/** Closes one toast, or all of them when no id is given. */
export function dismissToast(id?: string): void {
  emit(
    toasts.map((item) => {
      if (id !== undefined && item.id !== id) return item
      scheduleRemoval(item.id)
      return { ...item, open: false }
    }),
  )
}

/**
 * Shows a toast. Only TOAST_LIMIT toasts exist at once, so the newest one
 * replaces any toast still on screen.
 */
export function toast(options: ToastOptions): { id: string; dismiss: () => void } {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  const id = String(counter)
  emit([{ ...options, id, open: true }, ...toasts].slice(0, TOAST_LIMIT))
  return { id, dismiss: () => dismissToast(id) }
}

/** Removes every toast at once; for tests. */
export function resetToasts(): void {
  for (const timer of removeTimers.values()) clearTimeout(timer)
  removeTimers.clear()
  emit([])
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

function getSnapshot(): ToastItem[] {
  return toasts
}

/** The toasts on screen, plus toast() and dismiss(). */
export function useToast(): {
  toasts: ToastItem[]
  toast: typeof toast
  dismiss: typeof dismissToast
} {
  const current = useSyncExternalStore(subscribe, getSnapshot, getSnapshot)
  return { toasts: current, toast, dismiss: dismissToast }
}
