import { useEffect } from 'react'

import { t } from '@/lib/i18n/i18n'

/** What a page tells search engines and link previews about itself. */
export type DocumentMeta = {
  title: string
  description: string
  /** An absolute URL of a picture for link previews; none when absent. */
  image?: string
  /** The Open Graph type: 'website' unless a page says otherwise (e.g. 'article' for a listing). */
  type?: string
}

/** The app's own title and description, shown by pages that set none (loading states, Coming soon). */
export function defaultDocumentMeta(): DocumentMeta {
  return { title: `${t('app.name')} - ${t('meta.rootTitle')}`, description: t('meta.rootDescription'), type: 'website' }
}

/** Sets (or, with `content` undefined, removes) the head's `<meta {attribute}="{key}">`. */
function setMeta(attribute: 'name' | 'property', key: string, content: string | undefined): void {
  let tag = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`)
  if (content === undefined) {
    tag?.remove()
    return
  }
  if (!tag) {
    tag = document.createElement('meta')
    tag.setAttribute(attribute, key)
    document.head.appendChild(tag)
  }
  tag.content = content
}

/** Writes the title, the meta description and their Open Graph twins (og:title, og:description, og:type, og:image). */
export function applyDocumentMeta(meta: DocumentMeta): void {
  document.title = meta.title
  setMeta('name', 'description', meta.description)
  setMeta('property', 'og:title', meta.title)
  setMeta('property', 'og:description', meta.description)
  setMeta('property', 'og:type', meta.type ?? 'website')
  setMeta('property', 'og:image', meta.image || undefined)
}

/**
 * Sets the page title and meta description (and their Open Graph twins) for
 * search engines and sharing. Without a title (e.g. while a detail page is
 * loading) and when the page goes away, the app's defaults return, so a page
 * that sets nothing never shows the previous page's title. A missing
 * description falls back to the default one.
 */
export function useDocumentMeta(
  title: string | undefined,
  description?: string,
  { image, type }: { image?: string; type?: string } = {},
): void {
  useEffect(() => {
    const fallback = defaultDocumentMeta()
    applyDocumentMeta(
      title ? { title, description: description ?? fallback.description, image, type: type ?? 'website' } : fallback,
    )
    return () => applyDocumentMeta(defaultDocumentMeta())
  }, [title, description, image, type])
}
