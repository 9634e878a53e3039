import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { tA } from '@/lib/i18n/admin'

import { useDeleteUser } from '../api/users'

/**
 * "Delete profile" (spec §2 User Management, §8 messages): the spec's
 * confirmation, an optional reason for the audit, then admin_delete_user.
 * The server's refusal (open trades, escrow, admins) is shown as it says.
 */
export function DeleteUserDialog({ user, onClose }: { user: { id: string; name: string } | null; onClose(): void }) {
  const remove = useDeleteUser()
  const [reason, setReason] = useState('')

  const close = () => {
    setReason('')
    onClose()
  }

  const confirm = async () => {
    if (!user) return
    try {
      await remove.mutateAsync({ userId: user.id, reason })
      toast({ title: tA('admin.users.deletedOk'), variant: 'success' })
      close()
    } catch (failure) {
      // Closed on failure too: the modal would hide the toast (and its
      // reason) from assistive technology while it stays open.
      const message = (failure as { message?: string }).message
      toast({ title: tA('admin.users.deleteFailed'), description: message || undefined, variant: 'destructive' })
      close()
    }
  }

  return (
    <Dialog open={!!user} onOpenChange={(open) => !open && close()}>
      <DialogContent closeLabel={tA('admin.users.cancel')}>
        <DialogTitle>{tA('admin.users.deleteTitle', { name: user?.name ?? '' })}</DialogTitle>
        <DialogDescription>{tA('admin.users.deleteConfirm')}</DialogDescription>
        <Field>
          <FieldLabel htmlFor="delete-reason">{tA('admin.users.reason')}</FieldLabel>
          <Textarea id="delete-reason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
        <DialogFooter>
          <Button type="button" variant="outline" onClick={close} disabled={remove.isPending}>
            {tA('admin.users.cancel')}
          </Button>
          <Button type="button" variant="destructive" onClick={() => void confirm()} disabled={remove.isPending}>
            {tA('admin.users.confirmDelete')}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
