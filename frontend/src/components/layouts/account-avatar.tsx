import { CircleUserIcon } from 'lucide-react'
import { useState } from 'react'

import { useAuth } from '@/lib/auth'
import { avatarUrl } from '@/lib/storage'

/** The signed-in user's picture from the public `avatars` bucket, or a generic icon. */
function AccountAvatar() {
  const { user } = useAuth()
  const [failedFor, setFailedFor] = useState<string | null>(null)
  if (!user || failedFor === user.id) return <CircleUserIcon aria-hidden="true" />
  return (
    <img
      src={avatarUrl(user.id)}
      alt=""
      aria-hidden="true"
      className="size-7 rounded-full object-cover"
      onError={() => setFailedFor(user.id)}
    />
  )
}

export { AccountAvatar }
