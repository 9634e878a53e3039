import type { ComponentProps } from 'react'

import { fallBackToPlaceholder, imageUrl } from '@/lib/storage'
import { cn } from '@/lib/utils'

/**
 * A listing photo by storage path or URL; the placeholder when empty or
 * broken. width asks storage for a copy that wide instead of the original.
 */
function ListingImage({ path, width, className, alt, ...props }: Omit<ComponentProps<'img'>, 'src' | 'width'> & { path: string | null | undefined; width?: number }) {
  return (
    <img
      src={imageUrl(path, width)}
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
