import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { NativeSelect, Textarea } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA } from '@/lib/i18n/admin'

import { suspendSchema, suspensionTypes, useSuspendUser, type SuspendValues } from '../api/users'

/** The suspend dialog (spec §2, §5, §8): duration required, reason optional. */
export function SuspendDialog({ user, onClose }: { user: { id: string; name: string } | null; onClose(): void }) {
  const { user: admin } = useAuth()
  const suspend = useSuspendUser()
  const form = useForm<SuspendValues>({ resolver: zodResolver(suspendSchema), defaultValues: { suspensionType: undefined, reason: '' } })
  const error = form.formState.errors.suspensionType

  const close = () => {
    form.reset({ suspensionType: undefined, reason: '' })
    onClose()
  }

  const onSubmit = form.handleSubmit(async (values) => {
    if (!user) return
    if (!admin) {
      toast({ title: 'Not authenticated', variant: 'destructive' })
      return
    }
    try {
      await suspend.mutateAsync({ userId: user.id, adminId: admin.id, values })
      toast({ title: tA('admin.users.suspendedOk'), variant: 'success' })
      close()
    } catch (failure) {
      toast({ title: (failure as { message?: string }).message || tA('admin.users.suspendFailed'), variant: 'destructive' })
    }
  })

  return (
    <Dialog open={!!user} onOpenChange={(open) => !open && close()}>
      <DialogContent closeLabel={tA('admin.users.cancel')}>
        <DialogTitle>{tA('admin.users.suspendTitle', { name: user?.name ?? '' })}</DialogTitle>
        <DialogDescription>{tA('admin.users.suspendDescription')}</DialogDescription>
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
          <Field>
            <FieldLabel htmlFor="suspension-type">{tA('admin.users.duration')}</FieldLabel>
            <NativeSelect id="suspension-type" aria-invalid={!!error} {...form.register('suspensionType', { setValueAs: (v: string) => v || undefined })}>
              <option value="">{tA('admin.users.choose')}</option>
              {suspensionTypes.map((type) => (
                <option key={type} value={type}>
                  {tA(`admin.users.${type}` as AdminKey)}
                </option>
              ))}
            </NativeSelect>
            {error?.message && <FieldError>{tA(error.message as AdminKey)}</FieldError>}
          </Field>
          <Field>
            <FieldLabel htmlFor="suspension-reason">{tA('admin.users.reason')}</FieldLabel>
            <Textarea id="suspension-reason" maxLength={500} {...form.register('reason')} />
          </Field>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={close} disabled={suspend.isPending}>
              {tA('admin.users.cancel')}
            </Button>
            <Button type="submit" variant="destructive" disabled={suspend.isPending}>
              {tA('admin.users.confirmSuspend')}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
