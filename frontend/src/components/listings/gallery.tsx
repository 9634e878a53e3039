import { useState } from 'react'

import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

import { ListingImage } from './listing-image'

/** A main photo with thumbnails to switch between the listing's photos. */
function Gallery({ images, alt }: { images: readonly string[] | null | undefined; alt: string }) {
  const { t } = useTranslation()
  const list = images?.length ? images : ['']
  const [index, setIndex] = useState(0)
  const current = Math.min(index, list.length - 1)

  return (
    <div className="flex flex-col gap-2">
      <ListingImage path={list[current]} width={1200} alt={alt} loading="eager" className="aspect-[16/10] w-full rounded-xl" />
      {list.length > 1 && (
        <ul aria-label={t('detail.photos')} className="flex gap-2 overflow-x-auto">
          {list.map((path, i) => (
            <li key={`${path}-${i}`}>
              <button
                type="button"
                aria-label={t('detail.showPhoto', { n: i + 1 })}
                aria-current={i === current ? 'true' : undefined}
                onClick={() => setIndex(i)}
                className={cn('overflow-hidden rounded-md border-2', i === current ? 'border-primary' : 'border-transparent')}
              >
                <ListingImage path={path} width={200} alt="" className="h-16 w-24" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

export { Gallery }
