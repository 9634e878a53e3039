import { act, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it, vi } from 'vitest'

import type { UploadStage } from '@/lib/upload-image'

import { filesToUpload, PhotoUpload } from '../photo-upload'

const file = (name: string) => new File(['x'], name, { type: 'image/jpeg' })

describe('filesToUpload', () => {
  it('takes only what still fits, and one photo to replace a single one', () => {
    const picked = [file('a.jpg'), file('b.jpg'), file('c.jpg')]
    expect(filesToUpload(picked, 8, 10)).toEqual({ chosen: picked.slice(0, 2), dropped: 1 })
    expect(filesToUpload(picked, 10, 10)).toEqual({ chosen: [], dropped: 3 })
    expect(filesToUpload(picked, 1, 1)).toEqual({ chosen: picked.slice(0, 1), dropped: 2 })
  })
})

describe('PhotoUpload', () => {
  it('shows each photo being resized, then uploaded, then lists it with a remove button', async () => {
    const steps: { stage: (stage: UploadStage) => void; done: (path: string) => void }[] = []
    const upload = vi.fn(
      (_file: File, onStage: (stage: UploadStage) => void) =>
        new Promise<string>((resolve) => {
          steps.push({ stage: onStage, done: resolve })
        }),
    )
    function Harness() {
      const [paths, setPaths] = useState<string[]>([])
      return <PhotoUpload value={paths} onChange={setPaths} upload={upload} accept={['image/jpeg']} />
    }
    render(<Harness />)
    const user = userEvent.setup()
    await user.upload(screen.getByLabelText('Add photos'), [file('a.jpg'), file('b.jpg')])

    await waitFor(() => expect(steps).toHaveLength(1))
    act(() => steps[0].stage('resizing'))
    expect(screen.getByRole('status')).toHaveTextContent('Resizing photo 1 of 2...')
    act(() => steps[0].stage('uploading'))
    expect(screen.getByRole('progressbar', { name: 'Uploading photo 1 of 2...' })).toHaveAttribute('value', '0.5')
    await act(async () => steps[0].done('u/a.jpg'))

    await waitFor(() => expect(steps).toHaveLength(2))
    act(() => steps[1].stage('uploading'))
    expect(screen.getByRole('status')).toHaveTextContent('Uploading photo 2 of 2...')
    await act(async () => steps[1].done('u/b.jpg'))

    expect(await screen.findByText('2 of 10 photos')).toBeInTheDocument()
    expect(screen.queryByRole('status')).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Remove photo 1' }))
    expect(screen.getByText('1 of 10 photos')).toBeInTheDocument()
    expect(screen.getByRole('img', { name: 'Photo 1' }).getAttribute('src')).toMatch(/\/render\/image\/public\/images\/u\/b\.jpg\?width=300$/)
  })

  it('discards from storage only photos uploaded here, also when a single photo is replaced', async () => {
    const onDiscard = vi.fn()
    function Harness() {
      const [paths, setPaths] = useState<string[]>(['saved/old.jpg'])
      return <PhotoUpload value={paths} onChange={setPaths} upload={async (f) => `u/${f.name}`} accept={['image/jpeg']} max={1} onDiscard={onDiscard} />
    }
    render(<Harness />)
    const user = userEvent.setup()
    await user.upload(screen.getByLabelText('Replace photo'), file('new.jpg'))
    await waitFor(() => expect(screen.getByRole('img', { name: 'Photo 1' }).getAttribute('src')).toMatch(/\/render\/image\/public\/images\/u\/new\.jpg\?width=300$/))
    expect(onDiscard).not.toHaveBeenCalled()

    await user.upload(screen.getByLabelText('Replace photo'), file('newer.jpg'))
    await waitFor(() => expect(onDiscard).toHaveBeenCalledWith('u/new.jpg'))
    await user.click(screen.getByRole('button', { name: 'Remove photo 1' }))
    expect(onDiscard).toHaveBeenLastCalledWith('u/newer.jpg')
    expect(onDiscard).toHaveBeenCalledTimes(2)
    expect(screen.getByLabelText('Add a photo')).toBeInTheDocument()
  })
})
