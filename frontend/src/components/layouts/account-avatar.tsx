import { CircleUserIcon } from 'lucide-react'
import { useState } from 'react'

import { useAuth } from '@/lib/auth'
import { userAvatarUrl } from '@/lib/storage'

/**
 * The signed-in user's picture from the public `avatars` bucket, or a generic
 * icon. A new upload changes the URL (see userAvatarUrl), so it shows at once.
 */
function AccountAvatar() {
  const { user } = useAuth()
  const [failedSrc, setFailedSrc] = useState<string | null>(null)
  if (!user) return <CircleUserIcon aria-hidden="true" />
  const src = userAvatarUrl(user)
  if (failedSrc === src) return <CircleUserIcon aria-hidden="true" />
  return (
    <img
      src={src}
      alt=""
      aria-hidden="true"
      className="size-7 rounded-full object-cover"
      onError={() => setFailedSrc(src)}
    />
  )
}

export { AccountAvatar }
