/**
 * Data: the single DynamoDB table, built from the same definition the local stack creates
 * (lambdas/core/depots/table.ts), so the indexes the code queries are the indexes that exist.
 */
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { SAUVEGARDES_TABLE_JOURS } from '../lambdas/core/modele/retention';
import { DEFINITION_TABLE, PROJECTION_INDEX } from '../lambdas/core/depots/table';
import { politiqueDonnees, type ConfigurationStage } from './configuration';

export class Donnees extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, config: ConfigurationStage) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: DEFINITION_TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: DEFINITION_TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: SAUVEGARDES_TABLE_JOURS },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: DEFINITION_TABLE.ttl,
      deletionProtection: config.production,
      removalPolicy: politiqueDonnees(config),
    });
    for (const index of DEFINITION_TABLE.index) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.nom,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[PROJECTION_INDEX],
      });
    }
  }
}
