/** Longest side of an uploaded listing photo, in pixels. */
export const MAX_IMAGE_SIDE = 1600
/** JPEG quality of resized photos. */
export const IMAGE_QUALITY = 0.82

/** The size that fits `width` × `height` inside `max` on its longest side (never enlarges). */
export function fitWithin(width: number, height: number, max = MAX_IMAGE_SIDE): { width: number; height: number } {
  const scale = Math.min(1, max / Math.max(width, height))
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

/**
 * Shrinks a photo on the client before upload (phones take 4000 px photos;
 * Kenyan mobile data is dear): draws it at most MAX_IMAGE_SIDE wide or high
 * and re-encodes it as JPEG. Falls back to the original file when the
 * browser cannot decode it.
 */
export async function resizeImage(file: File): Promise<Blob> {
  if (typeof createImageBitmap !== 'function' || typeof document === 'undefined') return file
  try {
    const bitmap = await createImageBitmap(file)
    const size = fitWithin(bitmap.width, bitmap.height)
    const canvas = document.createElement('canvas')
    canvas.width = size.width
    canvas.height = size.height
    const context = canvas.getContext('2d')
    if (!context) return file
    context.drawImage(bitmap, 0, 0, size.width, size.height)
    bitmap.close?.()
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', IMAGE_QUALITY))
    return blob && blob.size < file.size ? blob : file
  } catch {
    return file
  }
}
