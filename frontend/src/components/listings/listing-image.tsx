import type { ComponentProps } from 'react'

import { fallBackToPlaceholder, imageUrl } from '@/lib/storage'
import { cn } from '@/lib/utils'

/** A listing photo by storage path or URL; the placeholder when empty or broken. */
function ListingImage({ path, className, alt, ...props }: Omit<ComponentProps<'img'>, 'src'> & { path: string | null | undefined }) {
  return (
    <img
      src={imageUrl(path)}
      alt={alt}
      loading="lazy"
      decoding="async"
      onError={fallBackToPlaceholder}
      className={cn('bg-muted object-cover', className)}
      {...props}
    />
  )
}

export { ListingImage }
