-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "machine" JSONB,
ADD COLUMN     "machineKind" TEXT;
