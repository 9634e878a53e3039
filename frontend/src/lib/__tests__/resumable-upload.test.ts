import { describe, expect, it } from 'vitest'

import { CHUNK_SIZE, ResumableUploadError, resumableUpload } from '../resumable-upload'

/** A fake TUS server: it keeps the bytes it receives and can drop a PATCH part-way. */
function fakeServer(opts: { dropFirstPatchAfter?: number; refuseCreate?: number } = {}) {
  let stored = new Uint8Array(0)
  let length = 0
  const calls: string[] = []
  let dropped = false
  const fetchImpl = async (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET'
    const h = new Headers(init?.headers)
    calls.push(`${method} ${h.get('upload-offset') ?? ''}`.trim())
    if (h.get('tus-resumable') !== '1.0.0') return new Response(null, { status: 412 })
    if (method === 'POST') {
      if (opts.refuseCreate) return Response.json({ statusCode: '403', message: 'new row violates row-level security policy' }, { status: opts.refuseCreate })
      length = Number(h.get('upload-length'))
      return new Response(null, { status: 201, headers: { location: 'https://api.test/storage/v1/upload/resumable/abc' } })
    }
    if (method === 'HEAD') return new Response(null, { status: 200, headers: { 'upload-offset': String(stored.length) } })
    if (method === 'PATCH') {
      if (Number(h.get('upload-offset')) !== stored.length) return new Response(null, { status: 409 })
      const chunk = new Uint8Array(await (init!.body as Blob).arrayBuffer())
      let keep = chunk
      if (opts.dropFirstPatchAfter !== undefined && !dropped) {
        dropped = true
        keep = chunk.slice(0, opts.dropFirstPatchAfter)
        stored = concat(stored, keep)
        throw new TypeError('network error')
      }
      stored = concat(stored, keep)
      return new Response(null, { status: 204, headers: { 'upload-offset': String(stored.length) } })
    }
    return new Response(null, { status: 405 })
  }
  return { fetchImpl: fetchImpl as typeof fetch, calls, stored: () => stored, length: () => length }
}

// toEqual on 6 MiB arrays takes most of a minute.
function sameBytes(a: Uint8Array, b: Uint8Array) {
  return a.length === b.length && a.every((v, i) => v === b[i])
}

function concat(a: Uint8Array, b: Uint8Array) {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

const options = { supabaseUrl: 'https://api.test', apikey: 'anon', accessToken: 'tok', bucket: 'images', path: 'u/p.jpg', contentType: 'image/jpeg', sleep: async () => {} }

describe('resumableUpload', () => {
  const data = new Uint8Array(CHUNK_SIZE + 1234).map((_, i) => i % 251)

  it('uploads in 6 MiB chunks', async () => {
    const server = fakeServer()
    const progress: number[] = []
    await resumableUpload(new Blob([data]), { ...options, fetchImpl: server.fetchImpl, onProgress: (n) => progress.push(n) })
    expect(server.calls).toEqual(['POST', 'PATCH 0', `PATCH ${CHUNK_SIZE}`])
    expect(progress).toEqual([CHUNK_SIZE, data.length])
    expect(sameBytes(server.stored(), data)).toBe(true)
  })

  it('resumes from the server offset after a dropped connection', async () => {
    const server = fakeServer({ dropFirstPatchAfter: 1000 })
    await resumableUpload(new Blob([data]), { ...options, fetchImpl: server.fetchImpl })
    expect(server.calls).toEqual(['POST', 'PATCH 0', 'HEAD', 'PATCH 1000', `PATCH ${1000 + CHUNK_SIZE}`])
    expect(sameBytes(server.stored(), data)).toBe(true)
  })

  it('gives up on a refusal without retrying', async () => {
    const server = fakeServer({ refuseCreate: 403 })
    await expect(resumableUpload(new Blob([data]), { ...options, fetchImpl: server.fetchImpl })).rejects.toBeInstanceOf(ResumableUploadError)
    expect(server.calls).toEqual(['POST'])
  })
})
