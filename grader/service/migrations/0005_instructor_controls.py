from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("service", "0004_lti"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="chosen",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="submission",
            name="adjusted_kind",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
        migrations.AddField(
            model_name="submission",
            name="adjusted_points",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="adjusted_reason",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="release",
            name="first_seen_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="release",
            name="first_seen_by",
            field=models.CharField(blank=True, default="", max_length=150),
        ),
    ]
