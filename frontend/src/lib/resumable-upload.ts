/**
 * A small TUS 1.0.0 client for Supabase Storage's /upload/resumable: large
 * photos on a flaky mobile connection resume from the server's offset
 * instead of starting over. Loaded lazily (upload-image.ts imports it only
 * for files above RESUMABLE_THRESHOLD), so it never weighs on the landing
 * route's bundle. Chunks are 6 MiB, as Supabase requires.
 */

export const CHUNK_SIZE = 6 * 1024 * 1024

/** Waits before each retry after a failed request (ms), as Supabase's docs configure tus-js-client. */
export const RETRY_DELAYS = [0, 3000, 5000, 10000, 20000]

export interface ResumableOptions {
  /** The project URL (env.supabaseUrl). */
  supabaseUrl: string
  apikey: string
  /** The caller's access token (or the anon key). */
  accessToken: string
  bucket: string
  path: string
  contentType: string
  cacheControl?: string
  upsert?: boolean
  onProgress?: (sent: number, total: number) => void
  /** Test seams. */
  fetchImpl?: typeof fetch
  sleep?: (ms: number) => Promise<void>
}

/** An upload refused by the server (a 4xx other than 409/423): not retried. */
export class ResumableUploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'ResumableUploadError'
  }
}

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)))

/** Uploads body with TUS; resolves once the server has the whole object. */
export async function resumableUpload(body: Blob, o: ResumableOptions): Promise<void> {
  const doFetch = o.fetchImpl ?? fetch
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const headers = { apikey: o.apikey, authorization: `Bearer ${o.accessToken}`, 'tus-resumable': '1.0.0' }
  const metadata = [
    `bucketName ${b64(o.bucket)}`,
    `objectName ${b64(o.path)}`,
    `contentType ${b64(o.contentType)}`,
    `cacheControl ${b64(o.cacheControl ?? '3600')}`,
  ].join(',')

  // Runs one request, retrying network failures and retryable statuses.
  const attempt = async (run: () => Promise<Response>): Promise<Response> => {
    let lastError: unknown
    for (const delay of RETRY_DELAYS) {
      await sleep(delay)
      try {
        const res = await run()
        if (res.ok) return res
        if (res.status >= 400 && res.status < 500 && res.status !== 409 && res.status !== 423) {
          throw new ResumableUploadError(res.status, await errorMessage(res))
        }
        lastError = new ResumableUploadError(res.status, await errorMessage(res))
      } catch (e) {
        if (e instanceof ResumableUploadError && e.status < 500 && e.status !== 409 && e.status !== 423) throw e
        lastError = e
      }
    }
    throw lastError
  }

  const created = await attempt(() =>
    doFetch(`${o.supabaseUrl}/storage/v1/upload/resumable`, {
      method: 'POST',
      headers: {
        ...headers,
        'upload-length': String(body.size),
        'upload-metadata': metadata,
        'x-upsert': o.upsert ? 'true' : 'false',
      },
    }),
  )
  const location = created.headers.get('location')
  if (!location) throw new ResumableUploadError(created.status, 'no upload URL')

  let offset = 0
  let failures = 0
  while (offset < body.size) {
    try {
      const res = await doFetch(location, {
        method: 'PATCH',
        headers: { ...headers, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: body.slice(offset, offset + CHUNK_SIZE),
      })
      if (!res.ok) throw new ResumableUploadError(res.status, await errorMessage(res))
      offset = Number(res.headers.get('upload-offset'))
      failures = 0
      o.onProgress?.(offset, body.size)
    } catch (e) {
      if (e instanceof ResumableUploadError && e.status < 500 && e.status !== 409 && e.status !== 423) throw e
      if (failures >= RETRY_DELAYS.length) throw e
      await sleep(RETRY_DELAYS[failures++])
      // The server kept what arrived: continue from its offset.
      const head = await attempt(() => doFetch(location, { method: 'HEAD', headers }))
      offset = Number(head.headers.get('upload-offset'))
    }
  }
}

async function errorMessage(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: string }
    return body.message ?? res.statusText
  } catch {
    return res.statusText
  }
}
