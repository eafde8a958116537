"""Proofs of mappings/vision.toml (torchvision datasets and transforms) and of the training
table's data_parallel entry: see tests/mappings/proof.py. torchvision does not import beside this
torch, so the datasets and transforms are proven by the numeric tests on synthetic files in the
real formats (tests/migrate/convert/vision/test_vision_pipeline.py: torchvision's formula in
float64); what MindSpore cannot do the same way is proven marked."""
import pytest

from tests.mappings.proof import Marked, ProvenBy, case_id, run

PIPELINE = "tests/migrate/convert/vision/test_vision_pipeline.py"
RULES = "tests/migrate/convert/vision/test_vision_rules.py"
SAMPLE2 = "tests/migrate/convert/training/test_recipe_sample2.py"
SAMPLE3_REST = "tests/migrate/convert/training/test_recipe_sample3_rest.py"
_MNIST = f"{PIPELINE}::test_mnist_kwargs_loaders_give_torchvision_batches"
_TV = "torchvision.transforms"

CASES = [
    ProvenBy("torchvision.datasets.MNIST", _MNIST),
    ProvenBy("torchvision.datasets.mnist.MNIST", _MNIST),
    ProvenBy("torchvision.datasets.CIFAR10", f"{PIPELINE}::test_cifar10_reads_the_pickle_batches"),
    ProvenBy("torchvision.datasets.cifar.CIFAR10", f"{PIPELINE}::test_cifar10_reads_the_pickle_batches"),
    ProvenBy("torchvision.datasets.FakeData", f"{PIPELINE}::test_fake_data_has_torchvisions_shapes_and_ranges"),
    ProvenBy("torchvision.datasets.fakedata.FakeData",
             f"{PIPELINE}::test_fake_data_has_torchvisions_shapes_and_ranges"),
    *[ProvenBy(f"{_TV}{sub}.{name}", _MNIST) for sub in ("", ".transforms")
      for name in ("Compose", "ToTensor", "Normalize")],
    *[ProvenBy(f"{_TV}{sub}.Lambda", f"{PIPELINE}::test_lambda_gets_a_tensor_and_gives_arrays")
      for sub in ("", ".transforms")],
    *[ProvenBy(f"{_TV}{sub}.{name}", f"{PIPELINE}::test_cifar_augmentations_give_windows_of_torchvisions_padded_images")
      for sub in ("", ".transforms") for name in ("Pad", "RandomCrop", "RandomHorizontalFlip")],
    ProvenBy("torchvision.utils.save_image", f"{PIPELINE}::test_save_image_writes_torchvisions_grid"),
    ProvenBy("torchvision.utils.make_grid", f"{SAMPLE2}::test_make_grid_lays_images_out_as_torchvision"),
    ProvenBy("torch.nn.parallel.data_parallel",
             f"{RULES}::test_data_parallel_computes_the_module_output_as_torch_on_one_device"),
    ProvenBy("torch.nn.parallel.data_parallel.data_parallel",
             f"{RULES}::test_data_parallel_computes_the_module_output_as_torch_on_one_device"),
    *[ProvenBy(f"{_TV}{sub}.Resize", f"{SAMPLE3_REST}::test_resize_computes_torchvisions_size_and_pixels")
      for sub in ("", ".transforms")],
    *[ProvenBy(f"{_TV}{sub}.RandomRotation", f"{SAMPLE3_REST}::test_a_converted_rotation_rotates_as_torchvision")
      for sub in ("", ".transforms")],
    *[ProvenBy(f"{_TV}{sub}.InterpolationMode.{mode}",
               f"{SAMPLE3_REST}::test_resize_computes_torchvisions_size_and_pixels")
      for sub in ("", ".functional") for mode in ("NEAREST", "BILINEAR", "BICUBIC")],
    *[Marked(f"{_TV}{sub}.CenterCrop", f"import torchvision\nt = torchvision.transforms{sub}.CenterCrop(64)", "MS901")
      for sub in ("", ".transforms")],
    *[Marked(f"torchvision.datasets{sub}.ImageFolder",
             f"import torchvision\nd = torchvision.datasets{sub}.ImageFolder('x')", "MS901")
      for sub in ("", ".folder")],
    *[Marked(f"torchvision.datasets{sub}.LSUN", f"import torchvision\nd = torchvision.datasets{sub}.LSUN('x')", "MS901")
      for sub in ("", ".lsun")],
]
# FashionMNIST and KMNIST are MNIST's code path with another folder and MindSpore class
for name in ("FashionMNIST", "KMNIST"):
    for sub in ("", ".mnist"):
        CASES.append(ProvenBy(f"torchvision.datasets{sub}.{name}", f"{PIPELINE}::test_other_mnist_like_datasets"))
for name in ("CIFAR100",):
    for sub in ("", ".cifar"):
        CASES.append(ProvenBy(f"torchvision.datasets{sub}.{name}", f"{PIPELINE}::test_cifar100_reads_the_fine_labels"))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
