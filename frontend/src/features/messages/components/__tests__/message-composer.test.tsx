import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'

import { MessageComposer } from '../message-composer'

function setup(onSend = vi.fn(async () => undefined)) {
  const user = userEvent.setup()
  render(<MessageComposer onSend={onSend} />)
  return { user, onSend, box: screen.getByRole('textbox', { name: 'Message' }) }
}

describe('message composer', () => {
  it('sends with Enter and clears the box', async () => {
    const { user, onSend, box } = setup()
    await user.type(box, '  Habari, is it still available?  ')
    await user.keyboard('{Enter}')
    await waitFor(() => expect(onSend).toHaveBeenCalledWith('Habari, is it still available?'))
    await waitFor(() => expect(box).toHaveValue(''))
  })

  it('starts a new line with Shift+Enter instead of sending', async () => {
    const { user, onSend, box } = setup()
    await user.type(box, 'Line one{Shift>}{Enter}{/Shift}Line two')
    expect(box).toHaveValue('Line one\nLine two')
    expect(onSend).not.toHaveBeenCalled()
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(onSend).toHaveBeenCalledWith('Line one\nLine two'))
  })

  it('refuses an empty message with its reason and sends nothing', async () => {
    const { user, onSend, box } = setup()
    await user.type(box, '   ')
    await user.keyboard('{Enter}')
    expect(await screen.findByRole('alert')).toHaveTextContent('Write a message first')
    expect(box).toHaveAttribute('aria-invalid', 'true')
    expect(onSend).not.toHaveBeenCalled()
  })

  it('refuses more than 2000 characters and counts them', async () => {
    const { user, onSend, box } = setup()
    fireEvent.change(box, { target: { value: 'a'.repeat(2001) } })
    expect(screen.getByText('2001/2000')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Send' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('A message can be at most 2000 characters')
    expect(onSend).not.toHaveBeenCalled()
  })

  it("keeps the text and says why when sending fails", async () => {
    const { user, box } = setup(vi.fn(async () => Promise.reject(new Error('You are sending messages too fast'))))
    await user.type(box, 'Hello{Enter}')
    expect(await screen.findByRole('alert')).toHaveTextContent('You are sending messages too fast. Wait a minute and try again.')
    expect(box).toHaveValue('Hello')
  })

  it('shows an unknown failure with the server text', async () => {
    const { user, box } = setup(vi.fn(async () => Promise.reject(new Error('connection reset'))))
    await user.type(box, 'Hello{Enter}')
    expect(await screen.findByRole('alert')).toHaveTextContent('Your message could not be sent (connection reset)')
  })
})
