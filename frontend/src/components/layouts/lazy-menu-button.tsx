import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react'

import { Button } from '@/components/ui/button'

type MenuProps = { defaultOpen?: boolean }

/**
 * A menu whose dropdown (Radix, floating-ui) is its own chunk, so the landing
 * page does not pay for it: the button loads it when the pointer or focus
 * first reaches it, and a click before it arrives opens it once it has.
 */
function lazyMenuButton(load: () => Promise<ComponentType<MenuProps>>) {
  const Menu = lazy(() => load().then((component) => ({ default: component })))

  function LazyMenuButton({ children, className }: { children: ReactNode; className?: string }) {
    const [open, setOpen] = useState(false)
    const placeholder = (
      <Button
        variant="ghost"
        size="icon"
        className={className}
        aria-haspopup="menu"
        onPointerEnter={() => void load()}
        onFocus={() => void load()}
        onClick={() => setOpen(true)}
      >
        {children}
      </Button>
    )
    if (!open) return placeholder
    return (
      <Suspense fallback={placeholder}>
        <Menu defaultOpen />
      </Suspense>
    )
  }
  return LazyMenuButton
}

export { lazyMenuButton }
