import { vi } from 'vitest'

/** Stubs window.matchMedia; `dark` answers prefers-color-scheme: dark. */
export function stubMatchMedia({ dark = false }: { dark?: boolean } = {}): void {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: dark && query.includes('prefers-color-scheme: dark'),
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }))
}

// jsdom lacks the browser APIs Radix positions and focuses with.
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}

/** Installs the stand-ins every test needs. */
export function installBrowserStubs(): void {
  vi.stubGlobal('ResizeObserver', ResizeObserverStub)
  stubMatchMedia()
  Element.prototype.scrollIntoView ??= function scrollIntoView() {}
  Element.prototype.hasPointerCapture ??= function hasPointerCapture() {
    return false
  }
  Element.prototype.releasePointerCapture ??= function releasePointerCapture() {}
}
