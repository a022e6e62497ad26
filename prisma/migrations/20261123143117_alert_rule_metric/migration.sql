-- AlterTable
ALTER TABLE "AlertRule" ADD COLUMN     "metric" JSONB;
