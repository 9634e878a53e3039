import { act, screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'

import { renderApp, visibleToasts } from '@/testing/test-utils'

function offerInstall(outcome: 'accepted' | 'dismissed') {
  const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
    prompt: vi.fn(async () => {}),
    userChoice: Promise.resolve({ outcome }),
  })
  act(() => {
    window.dispatchEvent(event)
  })
  return event
}

describe('install prompt', () => {
  it('appears when the browser offers installation and installs on request', async () => {
    const { user } = await renderApp('/home')
    expect(screen.queryByRole('heading', { name: 'Install KejaNest' })).not.toBeInTheDocument()
    const event = offerInstall('accepted')
    expect(await screen.findByRole('heading', { name: 'Install KejaNest' })).toBeInTheDocument()
    expect(screen.getByText('Install our app for a better experience with offline access and quick launch.')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Install' }))
    expect(event.prompt).toHaveBeenCalledOnce()
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('KejaNest installed successfully!'))
    expect(screen.queryByRole('heading', { name: 'Install KejaNest' })).not.toBeInTheDocument()
  })

  it('hides after dismissal', async () => {
    const { user } = await renderApp('/home')
    offerInstall('dismissed')
    await user.click(await screen.findByRole('button', { name: 'Not now' }))
    expect(screen.queryByRole('heading', { name: 'Install KejaNest' })).not.toBeInTheDocument()
  })
})
