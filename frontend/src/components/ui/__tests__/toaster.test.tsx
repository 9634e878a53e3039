import { act, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'

import { Toaster } from '@/components/ui/toaster'
import { TOAST_DURATION, toast } from '@/hooks/use-toast'
import { getToastRegion, visibleToasts } from '@/testing/test-utils'

describe('Toaster', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('shows a toast with its title and description', () => {
    render(<Toaster />)
    act(() => {
      toast({ title: 'Saved', description: 'Your listing is live', variant: 'success' })
    })

    const [item] = visibleToasts()
    expect(item).toHaveTextContent('Saved')
    expect(item).toHaveTextContent('Your listing is live')
    expect(item).toHaveAttribute('data-variant', 'success')
  })

  it('shows only one toast at a time: a new one replaces the old', () => {
    render(<Toaster />)
    act(() => {
      toast({ title: 'First message' })
    })
    act(() => {
      toast({ title: 'Second message', variant: 'info' })
    })

    const items = visibleToasts()
    expect(items).toHaveLength(1)
    expect(items[0]).toHaveTextContent('Second message')
    expect(within(getToastRegion()).queryByText('First message')).not.toBeInTheDocument()
  })

  it('closes after the default 5000 ms', () => {
    vi.useFakeTimers()
    render(<Toaster />)
    act(() => {
      toast({ title: 'Short-lived' })
    })
    expect(TOAST_DURATION).toBe(5000)

    act(() => {
      vi.advanceTimersByTime(4900)
    })
    expect(visibleToasts()[0]).toHaveAttribute('data-state', 'open')

    act(() => {
      vi.advanceTimersByTime(200)
    })
    act(() => {
      vi.runOnlyPendingTimers()
    })
    expect(within(getToastRegion()).queryByText('Short-lived')).not.toBeInTheDocument()
  })

  it('closes when its close button is pressed', async () => {
    render(<Toaster />)
    act(() => {
      toast({ title: 'Dismiss me' })
    })
    act(() => {
      screen.getByRole('button', { name: 'Close' }).click()
    })
    act(() => {
      // Let the exit state settle.
    })
    expect(within(getToastRegion()).queryByText('Dismiss me')).not.toBeInTheDocument()
  })
})
